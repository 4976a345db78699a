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
    // The layer is validated into a buffer on the stack, then sorted there: no array is made for a few headers.
    try withUnsafeTemporaryAllocation(of: HTTPField.self, capacity: headers.count) {
      (layer: UnsafeMutableBufferPointer<HTTPField>) throws(NetworkError) in
      let base = layer.baseAddress.unsafelyUnwrapped
      var count = 0
      defer { base.deinitialize(count: count) }
      // The error reported is the first bad field's in sorted order, whatever order the dictionary has.
      var refusal: (name: String, error: NetworkError)?
      for (name, value) in headers {
        do throws(NetworkError) {
          (base + count).initialize(to: try Self.field(name: name, value: value))
          count += 1
        } catch {
          if refusal.map({ name < $0.name }) ?? true { refusal = (name, error) }
        }
      }
      if let refusal { throw refusal.error }
      // An insertion sort by name as the caller spelled it: a layer holds a few fields.
      for sorted in 1..<count {  // count ≥ 1: the dictionary is not empty
        var index = sorted
        while index > 0, layer[index].name.rawName < layer[index - 1].name.rawName {
          layer.swapAt(index, index - 1)
          index -= 1
        }
      }
      replaceFields(with: UnsafeBufferPointer(start: base, count: count))
    }
  }

  /// Sets the fields of header dictionaries checked once (``CheckedHeaderLayers``), as merging the dictionaries one
  /// after the other with ``merge(validating:)`` would.
  /// - Parameter checked: The checked layers.
  /// - Throws: The ``NetworkError`` of the layers' first bad field; the fields are then unchanged.
  package mutating func merge(_ checked: CheckedHeaderLayers) throws(NetworkError) {
    replaceFields(with: try checked.outcome.get())
  }

  /// Sets the fields of `layer`, checked already: each name replaces the fields of that name in the place of the
  /// first of them, and a name not present yet is added at the end, in `layer`'s order.
  private mutating func replaceFields<Layer: RandomAccessCollection<HTTPField>>(with layer: Layer)
  where Layer.Index == Int {
    for index in layer.indices {
      let field = layer[index]
      if layer[..<index].contains(where: { $0.name == field.name }) { continue }
      if field.name != .cookie, !layer[(index + 1)...].contains(where: { $0.name == field.name }) {
        self[field.name] = field.value  // no array for one field (the name setter would split a cookie)
      } else {
        self[fields: field.name] = layer[index...].filter { $0.name == field.name }
      }
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
    // HTTPTypes keeps a valid value as it is and rewrites any other: an unchanged value is a valid one, checked once.
    // A valid value holds no CR, LF or NUL: the check that says so runs only for a value that is not valid.
    let trimmed = value.trimmingSpacesAndTabs()
    let field = HTTPField(name: fieldName, value: trimmed)
    guard field.value == trimmed else {
      if HTTPField.containsLineBreakOrNUL(value) {
        throw NetworkError(code: .invalidHeader, message: "the value of header '\(name)' contains CR, LF or NUL")
      }
      throw NetworkError(code: .invalidHeader, message: "the value of header '\(name)' is not a valid field value")
    }
    return field
  }
}

/// Header dictionaries checked once, when they are set, rather than by every request: their fields merged in order
/// (later layers replacing earlier fields of the same name, as ``HTTPFields/merge(validating:)`` merges them one after
/// the other), or the error of the first bad field, which each request using them then fails with.
package struct CheckedHeaderLayers: Sendable {
  /// The merged fields, or the error of the first bad field in the order the layers are merged.
  package let outcome: Result<HTTPFields, NetworkError>

  /// Checks and merges `layers`, lowest first.
  /// - Parameter layers: Header dictionaries, each replacing the fields of the ones before it.
  package init(_ layers: [[String: String]] = []) {
    outcome = Result { () throws(NetworkError) in
      var fields = HTTPFields()
      for layer in layers {
        try fields.merge(validating: layer)
      }
      return fields
    }
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
