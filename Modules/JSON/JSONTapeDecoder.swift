import Foundation

/// Lets the decoder treat `[String: V]` specially under a key strategy, as Foundation does (its keys are not
/// converted).
private protocol StringKeyedDictionaryMarker {
  static var elementType: any Decodable.Type { get }
}

extension Dictionary: StringKeyedDictionaryMarker where Key == String, Value: Decodable {
  static var elementType: any Decodable.Type { Value.self }
}

/// Lets the decoder read an array of any `Decodable` straight off the tape.
private protocol DecodableArrayMarker {
  static func elements(of document: JSONDocument, _ index: Int, depth: Int, _ node: JSONPathNode?) throws -> Self
}

extension Array: DecodableArrayMarker where Element: Decodable {
  /// The standard library's `Array.init(from:)` without the unkeyed container in between: each element decoded with
  /// the depth and coding path that container gives it (`Index n`), so values and errors are the same.
  static func elements(of document: JSONDocument, _ index: Int, depth: Int, _ node: JSONPathNode?) throws -> Self {
    let e = document.entry(index)
    var result: [Element] = []
    result.reserveCapacity(e.b)
    var k = index &+ 1
    var position = 0
    while k < e.a {
      result.append(try document.unwrap(k, as: Element.self, depth: depth &+ 1, node, JSONIndexKey(index: position)))
      k = document.skip(k)
      position &+= 1
    }
    return result
  }
}

/// `Decoder` over one tape value: three words (document, tape index and depth, path), so passing it as
/// `any Decoder` allocates nothing.
struct JSONTapeDecoder: Decoder, SingleValueDecodingContainer {
  let document: JSONDocument
  let index: Int32
  /// The number of containers above this value, which picks its key-search slot.
  let depth: Int32
  let node: JSONPathNode?

  init(document: JSONDocument, index: Int, depth: Int, node: JSONPathNode?) {
    self.document = document
    self.index = Int32(truncatingIfNeeded: index)
    self.depth = Int32(truncatingIfNeeded: depth)
    self.node = node
  }

  var codingPath: [any CodingKey] { JSONPathNode.path(node) }
  var userInfo: [CodingUserInfoKey: Any] { document.options.userInfo }

  @inline(__always) var entry: TapeEntry { document.entry(Int(index)) }

  func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
    let e = entry
    switch e.kind {
    case .object, .objectFromStart, .objectSlow:
      // The node `childNode` made for this object, or (at the top, or through a wrapper) one adding no key.
      let object =
        (node as? JSONObjectNode).flatMap { $0.header == Int(index) ? $0 : nil }
        ?? JSONObjectNode(parent: node, key: nil, document: document, header: Int(index), depth: Int(depth))
      return KeyedDecodingContainer(try JSONKeyedContainer<Key>(object))
    case .null:
      throw DecodingError.valueNotFound(
        [String: Any].self,
        .init(
          codingPath: codingPath,
          debugDescription: "Cannot get keyed decoding container -- found null value instead"
        )
      )
    default:
      throw mismatch([String: Any].self, e, codingPath)
    }
  }

  func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
    let e = entry
    switch e.kind {
    case .array:
      return JSONUnkeyedContainer(document: document, header: Int(index), depth: Int(depth), node: node)
    case .null:
      throw DecodingError.valueNotFound(
        [Any].self,
        .init(
          codingPath: codingPath,
          debugDescription: "Cannot get unkeyed decoding container -- found null value instead"
        )
      )
    default:
      throw mismatch([Any].self, e, codingPath)
    }
  }

  func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

  func decodeNil() -> Bool { entry.kind == .null }
  func decode(_: Bool.Type) throws -> Bool { try document.scalar(node, nil) { try document.boolValue(Int(index)) } }
  func decode(_: String.Type) throws -> String {
    try document.scalar(node, nil) { try document.stringValue(Int(index)) }
  }
  func decode(_: Double.Type) throws -> Double {
    try document.scalar(node, nil) { try document.doubleValue(Int(index)) }
  }
  func decode(_: Float.Type) throws -> Float { try document.scalar(node, nil) { try document.floatValue(Int(index)) } }
  func decode(_ type: Int.Type) throws -> Int { try integer(type) }
  func decode(_ type: Int8.Type) throws -> Int8 { try integer(type) }
  func decode(_ type: Int16.Type) throws -> Int16 { try integer(type) }
  func decode(_ type: Int32.Type) throws -> Int32 { try integer(type) }
  func decode(_ type: Int64.Type) throws -> Int64 { try integer(type) }
  func decode(_ type: UInt.Type) throws -> UInt { try integer(type) }
  func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(type) }
  func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(type) }
  func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(type) }
  func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(type) }
  func decode<T: Decodable>(_ type: T.Type) throws -> T {
    try document.unwrap(Int(index), as: type, depth: Int(depth), node, nil)
  }

  @inline(__always) private func integer<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
    try document.scalar(node, nil) { try document.integerValue(Int(index), type) }
  }
}

func mismatch(_ type: Any.Type, _ e: TapeEntry, _ path: [any CodingKey]) -> DecodingError {
  DecodingError.typeMismatch(
    type,
    .init(codingPath: path, debugDescription: "Expected to decode \(type) but found \(e.kind.noun) instead.")
  )
}

extension TapeKind {
  /// How Foundation's messages name a JSON value.
  var noun: String {
    switch self {
    case .null: "null"
    case .true, .false: "bool"
    case .number: "number"
    case .asciiString, .simpleString, .string: "a string"
    case .array: "an array"
    case .object, .objectFromStart, .objectSlow: "a dictionary"
    }
  }
}

// MARK: - Unwrapping scalars

/// A scalar of the wrong JSON type, thrown without a coding path so the hot paths pass no key around; containers
/// add the path (`error(at:)`) as they rethrow it.
struct ScalarMismatch: Error {
  let type: Any.Type
  let kind: TapeKind
  /// Bool reports `null` as a type mismatch, the other scalars as a missing value (Foundation's choice).
  let nullIsMismatch: Bool

  func error(at path: [any CodingKey]) -> DecodingError {
    if kind == .null, !nullIsMismatch {
      return DecodingError.valueNotFound(
        type,
        .init(codingPath: path, debugDescription: "Cannot get value of type \(type) -- found null value instead")
      )
    }
    return DecodingError.typeMismatch(
      type,
      .init(codingPath: path, debugDescription: "Expected to decode \(type) but found \(kind.noun) instead.")
    )
  }
}

extension JSONDocument {
  @inline(__always) func boolValue(_ index: Int) throws -> Bool {
    let e = entry(index)
    switch e.kind {
    case .true: return true
    case .false: return false
    default: throw ScalarMismatch(type: Bool.self, kind: e.kind, nullIsMismatch: true)
    }
  }

  @inline(__always) func stringValue(_ index: Int) throws -> String {
    let e = entry(index)
    switch e.kind {
    case .asciiString: return String(decoding: UnsafeBufferPointer(start: bytes + e.a, count: e.b), as: UTF8.self)
    case .simpleString, .string: return try string(at: index)
    default: throw ScalarMismatch(type: String.self, kind: e.kind, nullIsMismatch: false)
    }
  }

  @inline(__always) func doubleValue(_ index: Int) throws -> Double {
    let e = entry(index)
    if e.kind == .number { return try double(e) }
    if let special = nonConformingValue(e, Double.self) { return special }
    throw ScalarMismatch(type: Double.self, kind: e.kind, nullIsMismatch: false)
  }

  func floatValue(_ index: Int) throws -> Float {
    let e = entry(index)
    if e.kind == .number { return try float(e) }
    if let special = nonConformingValue(e, Float.self) { return special }
    throw ScalarMismatch(type: Float.self, kind: e.kind, nullIsMismatch: false)
  }

  @inline(__always) func integerValue<T: FixedWidthInteger>(_ index: Int, _ type: T.Type) throws -> T {
    let e = entry(index)
    guard e.kind == .number else { throw ScalarMismatch(type: type, kind: e.kind, nullIsMismatch: false) }
    return try integer(e, as: type)
  }

  func nonConformingValue<T: BinaryFloatingPoint>(_ e: TapeEntry, _ type: T.Type) -> T? {
    guard e.kind == .asciiString || e.kind == .simpleString,
      case .convertFromString(let positive, let negative, let nan) = options.nonConformingFloatDecodingStrategy
    else { return nil }
    let span = UnsafeBufferPointer(start: bytes + e.a, count: e.b)
    if span.elementsEqual(positive.utf8) { return T.infinity }
    if span.elementsEqual(negative.utf8) { return -T.infinity }
    if span.elementsEqual(nan.utf8) { return T.nan }
    return nil
  }
}

extension JSONDocument {
  @inline(__always) func fullPath(_ node: JSONPathNode?, _ key: (any CodingKey)?) -> [any CodingKey] {
    if let key { return JSONPathNode.path(node, appending: key) }
    return JSONPathNode.path(node)
  }

  func valueNotFound(_ type: Any.Type, _ node: JSONPathNode?, _ key: (any CodingKey)?) -> DecodingError {
    DecodingError.valueNotFound(
      type,
      .init(
        codingPath: fullPath(node, key),
        debugDescription: "Cannot get value of type \(type) -- found null value instead"
      )
    )
  }

  /// Runs one of the scalar reads above for the value at `key` below `node`, turning a `ScalarMismatch` into
  /// Foundation's error at that coding path.
  @inline(__always) func scalar<T>(
    _ node: JSONPathNode?,
    _ key: (any CodingKey)?,
    _ readValue: () throws -> T
  ) throws -> T {
    do {
      return try readValue()
    } catch let mismatch as ScalarMismatch {
      throw mismatch.error(at: fullPath(node, key))
    }
  }

  /// Decodes any `Decodable` at tape `index`, with Foundation's special cases (Date, Data, URL, Decimal, and
  /// `[String: V]` under a key strategy) before the type's own `init(from:)`.
  func unwrap<T: Decodable>(
    _ index: Int,
    as type: T.Type,
    depth: Int,
    _ node: JSONPathNode?,
    _ key: (any CodingKey)?
  ) throws -> T {
    if T.self == String.self { return try scalar(node, key) { try stringValue(index) } as! T }
    if T.self == Date.self { return try date(index, depth: depth, node, key) as! T }
    if T.self == Data.self { return try data(index, depth: depth, node, key) as! T }
    if T.self == URL.self {
      let text = try scalar(node, key) { try stringValue(index) }
      guard let url = URL(string: text) else {
        throw DecodingError.dataCorrupted(
          .init(codingPath: fullPath(node, key), debugDescription: "Invalid URL string.")
        )
      }
      return url as! T
    }
    if T.self == Decimal.self {
      let e = entry(index)
      guard e.kind == .number else {
        if e.kind == .null { throw valueNotFound(Decimal.self, node, key) }
        throw DecodingError.typeMismatch(Decimal.self, .init(codingPath: fullPath(node, key), debugDescription: ""))
      }
      return try decimal(e) as! T
    }
    // Arrays of scalars skip the standard library's generic `Array.init(from:)` (metadata lookups per array); the
    // loop is the same one, so values and errors are the same.
    if T.self == [String].self { return try scalarArray(index, String.self, depth: depth, node, key) as! T }
    if T.self == [Int].self { return try scalarArray(index, Int.self, depth: depth, node, key) as! T }
    if T.self == [Double].self { return try scalarArray(index, Double.self, depth: depth, node, key) as! T }
    if T.self == [Bool].self { return try scalarArray(index, Bool.self, depth: depth, node, key) as! T }
    if !options.defaultKeys, let marker = T.self as? any StringKeyedDictionaryMarker.Type {
      return try stringDictionary(index, elementType: marker.elementType, depth: depth, node, key) as! T
    }
    // Arrays of other types skip the standard library's generic `Array.init(from:)` and its unkeyed container (a
    // witness call for every `isAtEnd`, `decode` and `append`); the cast is tried only for a JSON array.
    if entry(index).kind == .array, let marker = T.self as? any DecodableArrayMarker.Type {
      return try marker.elements(of: self, index, depth: depth, childNode(node, key, index, depth)) as! T
    }
    return try type.init(from: child(index, depth: depth, node, key))
  }

  /// An array of `String`, `Int`, `Double` or `Bool` at `index`: the elements are read straight off the tape, and a
  /// coding path is built only for an error (the path Foundation's unkeyed container reports).
  private func scalarArray<Element: Decodable>(
    _ index: Int,
    _ type: Element.Type,
    depth: Int,
    _ node: JSONPathNode?,
    _ key: (any CodingKey)?
  ) throws -> [Element] {
    let e = entry(index)
    guard e.kind == .array else { return try [Element](from: child(index, depth: depth, node, key)) }
    var result: [Element] = []
    result.reserveCapacity(e.b)
    var k = index &+ 1
    var position = 0
    do {
      while k < e.a {
        if Element.self == String.self {
          result.append(try stringValue(k) as! Element)
        } else if Element.self == Int.self {
          result.append(try integerValue(k, Int.self) as! Element)
        } else if Element.self == Double.self {
          result.append(try doubleValue(k) as! Element)
        } else {
          result.append(try boolValue(k) as! Element)
        }
        k = skip(k)
        position &+= 1
      }
    } catch let mismatch as ScalarMismatch {
      var path = fullPath(node, key)
      path.append(JSONIndexKey(index: position))
      throw mismatch.error(at: path)
    }
    return result
  }

  @inline(__always) func child(
    _ index: Int,
    depth: Int,
    _ node: JSONPathNode?,
    _ key: (any CodingKey)?
  )
    -> JSONTapeDecoder
  {
    JSONTapeDecoder(document: self, index: index, depth: depth, node: childNode(node, key, index, depth))
  }

  /// The coding path of the value at `index` below `node`: a new node for its key (for an object, the node its keyed
  /// containers share), or `node` itself when it has none.
  @inline(__always) func childNode(
    _ node: JSONPathNode?,
    _ key: (any CodingKey)?,
    _ index: Int,
    _ depth: Int
  ) -> JSONPathNode? {
    guard let key else { return node }
    if entry(index).kind.rawValue >= TapeKind.object.rawValue {
      return JSONObjectNode(parent: node, key: key, document: self, header: index, depth: depth)
    }
    return JSONPathNode(parent: node, key: key)
  }

  private func stringDictionary(
    _ index: Int,
    elementType: any Decodable.Type,
    depth: Int,
    _ node: JSONPathNode?,
    _ key: (any CodingKey)?
  ) throws -> [String: Any] {
    let e = entry(index)
    guard e.kind.rawValue >= TapeKind.object.rawValue else {
      if e.kind == .null { throw valueNotFound([String: Any].self, node, key) }
      throw mismatch([String: Any].self, e, fullPath(node, key))
    }
    let dictionaryNode = childNode(node, key, index, depth)
    var result: [String: Any] = [:]
    var k = index + 1
    let end = e.a
    while k < end {
      let name = try string(at: k)
      let valueKey = JSONIndexKey(stringValue: name).unsafelyUnwrapped
      if result[name] == nil {
        result[name] = try unwrapOpened(elementType, k + 1, depth: depth + 1, dictionaryNode, valueKey)
      }
      k = skip(k + 1)
    }
    return result
  }

  private func unwrapOpened<V: Decodable>(
    _ type: V.Type,
    _ index: Int,
    depth: Int,
    _ node: JSONPathNode?,
    _ key: any CodingKey
  ) throws -> Any {
    try unwrap(index, as: type, depth: depth, node, key)
  }

  private func date(_ index: Int, depth: Int, _ node: JSONPathNode?, _ key: (any CodingKey)?) throws -> Date {
    let e = entry(index)
    if e.kind == .null { throw valueNotFound(Date.self, node, key) }
    switch options.dateDecodingStrategy {
    case .deferredToDate:
      return try Date(from: child(index, depth: depth, node, key))
    case .secondsSince1970:
      return Date(timeIntervalSince1970: try scalar(node, key) { try doubleValue(index) })
    case .millisecondsSince1970:
      return Date(timeIntervalSince1970: try scalar(node, key) { try doubleValue(index) } / 1000.0)
    case .iso8601:
      let text = try scalar(node, key) { try stringValue(index) }
      guard let date = try? Date.ISO8601FormatStyle().parse(text) else {
        // Foundation reports the path of the container, without the key.
        throw DecodingError.dataCorrupted(
          .init(codingPath: JSONPathNode.path(node), debugDescription: "Expected date string to be ISO8601-formatted.")
        )
      }
      return date
    case .custom(let closure):
      return try closure(child(index, depth: depth, node, key))
    @unknown default:
      return try Date(from: child(index, depth: depth, node, key))
    }
  }

  private func data(_ index: Int, depth: Int, _ node: JSONPathNode?, _ key: (any CodingKey)?) throws -> Data {
    let e = entry(index)
    if e.kind == .null { throw valueNotFound(Data.self, node, key) }
    switch options.dataDecodingStrategy {
    case .deferredToData:
      return try Data(from: child(index, depth: depth, node, key))
    case .base64:
      let text = try scalar(node, key) { try stringValue(index) }
      guard let data = Data(base64Encoded: text) else {
        throw DecodingError.dataCorrupted(
          .init(codingPath: fullPath(node, key), debugDescription: "Encountered Data is not valid Base64.")
        )
      }
      return data
    case .custom(let closure):
      return try closure(child(index, depth: depth, node, key))
    @unknown default:
      return try Data(from: child(index, depth: depth, node, key))
    }
  }
}
