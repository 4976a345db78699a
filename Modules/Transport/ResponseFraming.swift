package import HTTPTypes

/// The framing checks every transport applies to a response head before reading its body (RFC 9110 §8.6, RFC 9112
/// §6.3): a `Content-Length` must be one non-negative decimal number. Several fields, or a comma-separated list,
/// are accepted only when every value is the same; anything else means the message's end cannot be known, so the
/// response is refused as a ``TransportError/Code/protocolError`` instead of read with one of the values.
package enum ResponseFraming {
  /// The error for a head whose `Content-Length` is invalid or ambiguous, or `nil` when it is sound or absent.
  package static func problem(in headers: HTTPFields) -> TransportError? {
    var length: Substring?
    for field in headers where field.name == .contentLength {
      if let problem = problem(in: field.value, after: &length) { return problem }
    }
    return nil
  }

  /// The error for these `Content-Length` field values (each possibly a comma-separated list), or `nil`.
  package static func problem(contentLengths values: some Sequence<String>) -> TransportError? {
    var length: Substring?
    for value in values {
      if let problem = problem(in: value, after: &length) { return problem }
    }
    return nil
  }

  /// Checks each element of one field value against `length`, the value read so far, read over the UTF-8 bytes so
  /// that a sound head costs no array or string.
  private static func problem(in fieldValue: String, after length: inout Substring?) -> TransportError? {
    let bytes = fieldValue.utf8
    var start = bytes.startIndex
    while true {
      let end = bytes[start...].firstIndex(of: UInt8(ascii: ",")) ?? bytes.endIndex
      var lower = start
      var upper = end
      while lower < upper, isBlank(bytes[lower]) { bytes.formIndex(after: &lower) }
      while upper > lower, isBlank(bytes[bytes.index(before: upper)]) { bytes.formIndex(before: &upper) }
      let value = fieldValue[lower..<upper]
      guard lower < upper, value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
        return TransportError(code: .protocolError, message: "the server sent an invalid Content-Length")
      }
      if let length, length != value {
        return TransportError(
          code: .protocolError,
          message: "the server sent conflicting Content-Length values (\(length) and \(value))"
        )
      }
      length = value
      guard end < bytes.endIndex else { return nil }
      start = bytes.index(after: end)
    }
  }

  private static func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
}
