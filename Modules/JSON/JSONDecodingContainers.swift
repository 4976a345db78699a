import Foundation

/// A keyed container over one object of the tape. Keys are found by comparing their UTF-8 with the raw bytes,
/// searching from just after the last match (Codable asks keys mostly in order), so no `String` or dictionary is
/// built per object. Objects with escaped or non-ASCII keys, and decoders with a key strategy, list their keys as
/// `String`s once, as Foundation does.
///
/// A struct holding one reference, the object's node (which its decoder made for the coding path anyway), so that
/// the standard library's type-erasing box copies one reference on every call and no object is allocated per
/// container.
struct JSONKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
  let object: JSONObjectNode

  init(_ object: JSONObjectNode) throws {
    try object.listKeysIfNeeded()
    self.object = object
  }

  @inline(__always) var document: JSONDocument { object.document }
  @inline(__always) var header: Int { object.header }
  @inline(__always) var depth: Int { object.depth }
  @inline(__always) var node: JSONPathNode? { object }
  /// The decoded (and converted) keys with their value's tape index, first occurrence first; nil on the byte path.
  @inline(__always) var keys: [(String, Int)]? { object.keys }

  var codingPath: [any CodingKey] { JSONPathNode.path(node) }

  var allKeys: [Key] {
    if let keys { return keys.compactMap { Key(stringValue: $0.0) } }
    var result: [Key] = []
    var seen = Set<String>()
    let end = document.entry(header).a
    var k = header + 1
    while k < end {
      // Byte-path keys are plain ASCII, so decoding them cannot fail.
      let name = (try? document.string(at: k)) ?? ""
      if seen.insert(name).inserted, let key = Key(stringValue: name) { result.append(key) }
      k = document.skip(k + 1)
    }
    return result
  }

  /// The tape index of the value for `key`, or nil.
  @inline(__always) func find(_ key: Key) -> Int? {
    if let keys {
      let name = key.stringValue
      for (candidate, value) in keys where candidate == name { return value }
      return nil
    }
    var name = key.stringValue
    let found = name.withUTF8 { findBytes($0) }
    if found == nil, !name.utf8.allSatisfy({ $0 < 0x80 }) { return findByString(name) }
    return found
  }

  @inline(__always) private func findBytes(_ text: UnsafeBufferPointer<UInt8>) -> Int? {
    let first = header &+ 1
    let end = document.entry(header).a
    let remembers = document.entry(header).kind == .object
    let slot = min(depth, document.hintSlots &- 1) &* 2
    var start = first
    if remembers, document.hints[slot] == header { start = document.hints[slot &+ 1] }
    var k = start
    while k < end {
      if document.stringEquals(k, text) { return matched(k, remembers, slot, end) }
      k = document.skip(k &+ 1)
    }
    k = first
    while k < start {
      if document.stringEquals(k, text) { return matched(k, remembers, slot, end) }
      k = document.skip(k &+ 1)
    }
    return nil
  }

  @inline(__always) private func matched(_ k: Int, _ remembers: Bool, _ slot: Int, _ end: Int) -> Int {
    if remembers {
      let next = document.skip(k &+ 1)
      document.hints[slot] = header
      document.hints[slot &+ 1] = next < end ? next : header &+ 1
    }
    return k &+ 1
  }

  /// Foundation compares keys as `String`s (canonical equivalence); a non-ASCII key that matched no bytes may still
  /// equal an ASCII one.
  private func findByString(_ name: String) -> Int? {
    let end = document.entry(header).a
    var k = header + 1
    while k < end {
      if let candidate = try? document.string(at: k), candidate == name { return k + 1 }
      k = document.skip(k + 1)
    }
    return nil
  }

  @inline(__always) func value(_ key: Key) throws -> Int {
    guard let index = find(key) else {
      throw DecodingError.keyNotFound(
        key,
        .init(codingPath: codingPath, debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\").")
      )
    }
    return index
  }

  /// The value for `key`, or nil when it is absent or `null` (what `decodeIfPresent` returns nil for).
  @inline(__always) func present(_ key: Key) -> Int? {
    guard let index = find(key), document.entry(index).kind != .null else { return nil }
    return index
  }

  func contains(_ key: Key) -> Bool { find(key) != nil }

  func decodeNil(forKey key: Key) throws -> Bool { document.entry(try value(key)).kind == .null }

  func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
    let index = try value(key)
    return try at(key) { try document.boolValue(index) }
  }
  func decode(_ type: String.Type, forKey key: Key) throws -> String {
    let index = try value(key)
    return try at(key) { try document.stringValue(index) }
  }
  func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
    let index = try value(key)
    return try at(key) { try document.doubleValue(index) }
  }
  func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
    let index = try value(key)
    return try at(key) { try document.floatValue(index) }
  }
  func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(key, type) }
  func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(key, type) }
  func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(key, type) }
  func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(key, type) }
  func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(key, type) }
  func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(key, type) }
  func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(key, type) }
  func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(key, type) }
  func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(key, type) }
  func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(key, type) }
  func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
    try document.unwrap(try value(key), as: type, depth: depth + 1, node, key)
  }

  func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
    guard let index = present(key) else { return nil }
    return try at(key) { try document.boolValue(index) }
  }
  func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
    guard let index = present(key) else { return nil }
    return try at(key) { try document.stringValue(index) }
  }
  func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
    guard let index = present(key) else { return nil }
    return try at(key) { try document.doubleValue(index) }
  }
  func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
    guard let index = present(key) else { return nil }
    return try at(key) { try document.floatValue(index) }
  }
  func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try presentInteger(key, type) }
  func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try presentInteger(key, type) }
  func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try presentInteger(key, type) }
  func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try presentInteger(key, type) }
  func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try presentInteger(key, type) }
  func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try presentInteger(key, type) }
  func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try presentInteger(key, type) }
  func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try presentInteger(key, type) }
  func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try presentInteger(key, type) }
  func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try presentInteger(key, type) }
  func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
    guard let index = present(key) else { return nil }
    return try document.unwrap(index, as: type, depth: depth + 1, node, key)
  }

  @inline(__always) private func presentInteger<T: FixedWidthInteger>(_ key: Key, _ type: T.Type) throws -> T? {
    guard let index = present(key) else { return nil }
    return try at(key) { try document.integerValue(index, type) }
  }

  @inline(__always) private func integer<T: FixedWidthInteger>(_ key: Key, _ type: T.Type) throws -> T {
    let index = try value(key)
    return try at(key) { try document.integerValue(index, type) }
  }

  /// Runs a scalar decode, adding this key's coding path to a type mismatch.
  @inline(__always) private func at<T>(_ key: Key, _ body: () throws -> T) throws -> T {
    do {
      return try body()
    } catch let mismatch as ScalarMismatch {
      throw mismatch.error(at: JSONPathNode.path(node, appending: key))
    }
  }

  func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type,
    forKey key: Key
  ) throws
    -> KeyedDecodingContainer<NestedKey>
  {
    try document.child(try value(key), depth: depth + 1, node, key).container(keyedBy: type)
  }

  func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
    try document.child(try value(key), depth: depth + 1, node, key).unkeyedContainer()
  }

  func superDecoder() throws -> any Decoder {
    let index = find(JSONIndexKey.super.stringValue) ?? document.nullIndex
    return document.child(index, depth: depth + 1, node, JSONIndexKey.super)
  }

  func superDecoder(forKey key: Key) throws -> any Decoder {
    document.child(find(key) ?? document.nullIndex, depth: depth + 1, node, key)
  }

  /// Finds a key given as a string (for `super`).
  private func find(_ name: String) -> Int? {
    if let key = Key(stringValue: name), key.stringValue == name { return find(key) }
    // The container's key type cannot spell it: compare the strings directly.
    if let keys { return keys.first { $0.0 == name }?.1 }
    return findByString(name)
  }
}

/// An unkeyed container over one array of the tape: a cursor that steps over each element (containers in O(1)).
struct JSONUnkeyedContainer: UnkeyedDecodingContainer {
  let document: JSONDocument
  let depth: Int
  let node: JSONPathNode?
  let end: Int
  let count: Int?
  var cursor: Int
  var currentIndex = 0

  init(document: JSONDocument, header: Int, depth: Int, node: JSONPathNode?) {
    self.document = document
    self.depth = depth
    self.node = node
    let e = document.entry(header)
    end = e.a
    count = e.b
    cursor = header + 1
  }

  var codingPath: [any CodingKey] { JSONPathNode.path(node) }
  var isAtEnd: Bool { cursor >= end }

  private var indexKey: JSONIndexKey { JSONIndexKey(index: currentIndex) }

  @inline(__always) private func next(
    _ type: Any.Type,
    _ message: String = "Unkeyed container is at end."
  ) throws
    -> Int
  {
    guard cursor < end else {
      throw DecodingError.valueNotFound(
        type,
        .init(codingPath: JSONPathNode.path(node, appending: indexKey), debugDescription: message)
      )
    }
    return cursor
  }

  @inline(__always) private mutating func advance() {
    if cursor < end { cursor = document.skip(cursor) }
    currentIndex &+= 1
  }

  /// The next element, or nil when it is `null` or past the end (both advance, as Foundation's do).
  @inline(__always) private mutating func presentNext() -> Int? {
    guard cursor < end, document.entry(cursor).kind != .null else {
      advance()
      return nil
    }
    return cursor
  }

  mutating func decodeNil() throws -> Bool {
    let index = try next(Never.self)
    guard document.entry(index).kind == .null else { return false }
    advance()
    return true
  }

  mutating func decode(_ type: Bool.Type) throws -> Bool { try nextScalar(type) { try $0.boolValue($1) } }
  mutating func decode(_ type: String.Type) throws -> String { try nextScalar(type) { try $0.stringValue($1) } }
  mutating func decode(_ type: Double.Type) throws -> Double { try nextScalar(type) { try $0.doubleValue($1) } }
  mutating func decode(_ type: Float.Type) throws -> Float { try nextScalar(type) { try $0.floatValue($1) } }
  mutating func decode(_ type: Int.Type) throws -> Int { try nextInteger(type) }
  mutating func decode(_ type: Int8.Type) throws -> Int8 { try nextInteger(type) }
  mutating func decode(_ type: Int16.Type) throws -> Int16 { try nextInteger(type) }
  mutating func decode(_ type: Int32.Type) throws -> Int32 { try nextInteger(type) }
  mutating func decode(_ type: Int64.Type) throws -> Int64 { try nextInteger(type) }
  mutating func decode(_ type: UInt.Type) throws -> UInt { try nextInteger(type) }
  mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try nextInteger(type) }
  mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try nextInteger(type) }
  mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try nextInteger(type) }
  mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try nextInteger(type) }
  mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
    let value = try document.unwrap(try next(type), as: type, depth: depth + 1, node, indexKey)
    advance()
    return value
  }

  @inline(__always) private mutating func nextInteger<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
    try nextScalar(type) { try $0.integerValue($1, type) }
  }

  /// Reads the next element with `readValue` (handed the document and the element's tape index, as a closure capturing
  /// `self` would overlap this mutating access), adds its coding path to a type mismatch, and steps over it.
  @inline(__always) private mutating func nextScalar<T>(
    _ type: T.Type,
    _ readValue: (JSONDocument, Int) throws -> T
  ) throws -> T {
    let index = try next(type)
    do {
      let value = try readValue(document, index)
      advance()
      return value
    } catch let mismatch as ScalarMismatch {
      throw mismatch.error(at: JSONPathNode.path(node, appending: indexKey))
    }
  }

  /// `nextScalar(_:_:)` for `decodeIfPresent`: nil (and a step) when the next element is `null` or past the end.
  @inline(__always) private mutating func presentScalar<T>(_ readValue: (JSONDocument, Int) throws -> T) throws -> T? {
    guard let index = presentNext() else { return nil }
    do {
      let value = try readValue(document, index)
      advance()
      return value
    } catch let mismatch as ScalarMismatch {
      throw mismatch.error(at: JSONPathNode.path(node, appending: indexKey))
    }
  }

  mutating func decodeIfPresent(_ type: Bool.Type) throws -> Bool? { try presentScalar { try $0.boolValue($1) } }
  mutating func decodeIfPresent(_ type: String.Type) throws -> String? {
    try presentScalar { try $0.stringValue($1) }
  }
  mutating func decodeIfPresent(_ type: Double.Type) throws -> Double? {
    try presentScalar { try $0.doubleValue($1) }
  }
  mutating func decodeIfPresent(_ type: Float.Type) throws -> Float? {
    try presentScalar { try $0.floatValue($1) }
  }
  mutating func decodeIfPresent(_ type: Int.Type) throws -> Int? { try presentInteger(type) }
  mutating func decodeIfPresent(_ type: Int8.Type) throws -> Int8? { try presentInteger(type) }
  mutating func decodeIfPresent(_ type: Int16.Type) throws -> Int16? { try presentInteger(type) }
  mutating func decodeIfPresent(_ type: Int32.Type) throws -> Int32? { try presentInteger(type) }
  mutating func decodeIfPresent(_ type: Int64.Type) throws -> Int64? { try presentInteger(type) }
  mutating func decodeIfPresent(_ type: UInt.Type) throws -> UInt? { try presentInteger(type) }
  mutating func decodeIfPresent(_ type: UInt8.Type) throws -> UInt8? { try presentInteger(type) }
  mutating func decodeIfPresent(_ type: UInt16.Type) throws -> UInt16? { try presentInteger(type) }
  mutating func decodeIfPresent(_ type: UInt32.Type) throws -> UInt32? { try presentInteger(type) }
  mutating func decodeIfPresent(_ type: UInt64.Type) throws -> UInt64? { try presentInteger(type) }
  mutating func decodeIfPresent<T: Decodable>(_ type: T.Type) throws -> T? {
    guard let index = presentNext() else { return nil }
    let value = try document.unwrap(index, as: type, depth: depth + 1, node, indexKey)
    advance()
    return value
  }

  @inline(__always) private mutating func presentInteger<T: FixedWidthInteger>(_ type: T.Type) throws -> T? {
    try presentScalar { try $0.integerValue($1, type) }
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy type: NestedKey.Type
  ) throws
    -> KeyedDecodingContainer<NestedKey>
  {
    let index = try next(KeyedDecodingContainer<NestedKey>.self)
    let container = try document.child(index, depth: depth + 1, node, indexKey).container(keyedBy: type)
    advance()
    return container
  }

  mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
    let index = try next(
      (any UnkeyedDecodingContainer).self,
      "Cannot get nested unkeyed container -- unkeyed container is at end."
    )
    let container = try document.child(index, depth: depth + 1, node, indexKey).unkeyedContainer()
    advance()
    return container
  }

  mutating func superDecoder() throws -> any Decoder {
    let index = try next((any Decoder).self, "Cannot get superDecoder() -- unkeyed container is at end.")
    let decoder = document.child(index, depth: depth + 1, node, indexKey)
    advance()
    return decoder
  }
}
