package import HTTPTypes

/// The framing checks every transport applies to a response head before reading its body (RFC 9110 §8.6, RFC 9112
/// §6.3): a `Content-Length` must be one non-negative decimal number. Several fields, or a comma-separated list,
/// are accepted only when every value is the same; anything else means the message's end cannot be known, so the
/// response is refused as a ``TransportError/Code/protocolError`` instead of read with one of the values.
package enum ResponseFraming {
  /// The error for a head whose `Content-Length` is invalid or ambiguous, or `nil` when it is sound or absent.
  package static func problem(in headers: HTTPFields) -> TransportError? {
    problem(contentLengths: headers[values: .contentLength])
  }

  /// The error for these `Content-Length` field values (each possibly a comma-separated list), or `nil`.
  package static func problem(contentLengths values: some Sequence<String>) -> TransportError? {
    var length: Substring?
    for fieldValue in values {
      for element in fieldValue.split(separator: ",", omittingEmptySubsequences: false) {
        let value = element.trimmingASCIISpaces()
        guard !value.isEmpty, value.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
          return TransportError(code: .protocolError, message: "the server sent an invalid Content-Length")
        }
        if let length, length != value {
          return TransportError(
            code: .protocolError,
            message: "the server sent conflicting Content-Length values (\(length) and \(value))"
          )
        }
        length = value
      }
    }
    return nil
  }
}

extension Substring {
  fileprivate func trimmingASCIISpaces() -> Substring {
    var value = self
    while let first = value.first, first == " " || first == "\t" { value.removeFirst() }
    while let last = value.last, last == " " || last == "\t" { value.removeLast() }
    return value
  }
}
