public import HTTPTypes

extension HTTPFields {
  /// Header fields from a plain dictionary, checked before anything is sent.
  ///
  /// Names must be HTTP tokens; values must not contain CR, LF or NUL (they would split the header and let a value
  /// smuggle in fields of its own). Leading and trailing spaces and tabs of a value are dropped.
  /// - Parameter headers: Names to values.
  /// - Throws: ``NetworkError`` with code ``NetworkError/Code/invalidHeader`` naming the first bad field (its name
  ///   only: the value, often a credential, is never quoted).
  public init(validating headers: [String: String]) throws(NetworkError) {
    self.init()
    try merge(validating: headers)
  }

  /// Sets the fields of `headers`, checked like ``init(validating:)``: each name replaces the fields of that name
  /// (compared without case) in the place of the first of them, and a name not present yet is added at the end, in
  /// sorted order. A name the dictionary spells twice (`Accept` and `accept`) is set with both values.
  /// - Parameter headers: Names to values.
  /// - Throws: ``NetworkError`` with code ``NetworkError/Code/invalidHeader`` naming the first bad field; the fields
  ///   are then unchanged.
  package mutating func merge(validating headers: [String: String]) throws(NetworkError) {
    guard !headers.isEmpty else { return }
    // A plain array first: `HTTPFields` appends one field at a time through its generic `replaceSubrange`, which is
    // not specialized outside its module; its `fields` subscript is.
    var layer: [HTTPField] = []
    layer.reserveCapacity(headers.count)
    for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
      layer.append(try Self.field(name: name, value: value))
    }
    for index in layer.indices {
      let name = layer[index].name
      if layer[..<index].contains(where: { $0.name == name }) { continue }
      self[fields: name] = layer[index...].filter { $0.name == name }
    }
  }

  /// Sets one field (replacing any of the same name), checked like ``init(validating:)``.
  /// - Parameters:
  ///   - value: The value.
  ///   - name: The field name.
  /// - Throws: ``NetworkError`` with code ``NetworkError/Code/invalidHeader`` when the name or value is invalid.
  public mutating func set(validating value: String, for name: String) throws(NetworkError) {
    let field = try Self.field(name: name, value: value)
    self[field.name] = field.value
  }

  private static func field(name: String, value: String) throws(NetworkError) -> HTTPField {
    guard let fieldName = HTTPField.Name(name) else {
      throw NetworkError(code: .invalidHeader, message: "'\(name.debugDescription)' is not a valid header name")
    }
    // The message names the field, never its value: a refused value is typically a credential (a token read from a
    // file with its trailing newline), and error text ends up in logs.
    // A valid value holds no CR, LF or NUL: the check that says so runs only for a value that is not valid.
    let trimmed = value.trimmingSpacesAndTabs()
    guard HTTPField.isValidValue(trimmed) else {
      if HTTPField.containsLineBreakOrNUL(value) {
        throw NetworkError(code: .invalidHeader, message: "the value of header '\(name)' contains CR, LF or NUL")
      }
      throw NetworkError(code: .invalidHeader, message: "the value of header '\(name)' is not a valid field value")
    }
    return HTTPField(name: fieldName, value: trimmed)
  }
}

extension HTTPField {
  /// Whether a field value holds CR, LF or NUL, the bytes that would end or cut its header line on the wire. Every
  /// place a header is accepted (these validating initialisers, the transports) refuses such a value with this check.
  /// - Parameter value: The value's bytes.
  package static func containsLineBreakOrNUL(_ value: UnsafeBufferPointer<UInt8>) -> Bool {
    value.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }
  }

  /// `containsLineBreakOrNUL(_:)` for a string.
  /// - Parameter value: The value.
  package static func containsLineBreakOrNUL(_ value: String) -> Bool {
    var value = value
    return value.withUTF8 { containsLineBreakOrNUL($0) }
  }

  /// Whether this field's value holds CR, LF or NUL (see `containsLineBreakOrNUL(_:)`).
  package var valueContainsLineBreakOrNUL: Bool {
    withUnsafeBytesOfValue { Self.containsLineBreakOrNUL($0) }
  }
}

extension String {
  /// The string without leading and trailing spaces and tabs; itself, with no copy, when it has none.
  fileprivate func trimmingSpacesAndTabs() -> String {
    let isBlank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
    guard let first = utf8.first, let last = utf8.last else { return self }
    guard isBlank(first) || isBlank(last) else { return self }
    guard let start = utf8.firstIndex(where: { !isBlank($0) }), let end = utf8.lastIndex(where: { !isBlank($0) }) else {
      return ""
    }
    return String(self[start...end])
  }
}
