import Foundation

// The Encoder API over StreamingEncoder: containers are (encoder, frame index, frame id) triples.

extension StreamingEncoder {
  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    let (frame, opened) = state.openOwnContainer(kind: .object, options: options)
    return KeyedEncodingContainer(KeyedContainer<Key>(encoder: self, frame: frame, id: opened ?? -1))
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    let (frame, opened) = state.openOwnContainer(kind: .array, options: options)
    return UnkeyedContainer(encoder: self, frame: frame, id: opened ?? -1)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    SingleValueContainer(encoder: self, frame: current, id: currentID)
  }

  func keyedContainer<Key: CodingKey>(in frame: Int, id: Int, keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    let opened = openContainer(at: frame, id: id, kind: .object)
    return KeyedEncodingContainer(KeyedContainer<Key>(encoder: self, frame: frame, id: opened ?? -1))
  }

  func unkeyedContainer(in frame: Int, id: Int) -> any UnkeyedEncodingContainer {
    let opened = openContainer(at: frame, id: id, kind: .array)
    return UnkeyedContainer(encoder: self, frame: frame, id: opened ?? -1)
  }
}

/// The encoder `superEncoder()` returns: it writes the place it was made for, wherever encoding has got to.
final class PlaceEncoder: Encoder {
  let encoder: StreamingEncoder
  let frame: Int
  let id: Int

  init(encoder: StreamingEncoder, frame: Int, id: Int) {
    self.encoder = encoder
    self.frame = frame
    self.id = id
  }

  var codingPath: [any CodingKey] { encoder.encoderPath(frame) }

  var userInfo: [CodingUserInfoKey: Any] { encoder.userInfo }

  func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
    encoder.keyedContainer(in: frame, id: id, keyedBy: type)
  }

  func unkeyedContainer() -> any UnkeyedEncodingContainer {
    encoder.unkeyedContainer(in: frame, id: id)
  }

  func singleValueContainer() -> any SingleValueEncodingContainer {
    SingleValueContainer(encoder: encoder, frame: frame, id: id)
  }
}

struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
  let encoder: StreamingEncoder
  let frame: Int
  let id: Int

  var codingPath: [any CodingKey] { encoder.containerPath(frame) }

  /// Writes the separator and `key`, after closing what was nested since; `false` once the frame is gone.
  @inline(__always)
  private func begin(_ key: Key) -> Bool {
    guard encoder.enter(frame, id) else { return false }
    encoder.beginMember(frame, key)
    return true
  }

  /// The common case in one access to the encoder's state: default keys, the frame on top.
  @inline(__always)
  private func fast(_ key: Key, _ value: (inout OutputBuffer) -> Void) -> Bool {
    guard encoder.options.defaultKeys else { return false }
    let text = key.stringValue
    return encoder.state.member(frame, id, key: text, options: encoder.options, value)
  }

  mutating func encodeNil(forKey key: Key) throws {
    if fast(key, { $0.appendStatic("null") }) { return }
    guard begin(key) else { return }
    encoder.writeStatic("null")
  }

  mutating func encode(_ value: Bool, forKey key: Key) throws {
    if fast(key, { value ? $0.appendStatic("true") : $0.appendStatic("false") }) { return }
    guard begin(key) else { return }
    if value { encoder.writeStatic("true") } else { encoder.writeStatic("false") }
  }

  mutating func encode(_ value: String, forKey key: Key) throws {
    let slashes = encoder.options.escapeSlashes
    if fast(key, { $0.appendString(value, escapingSlashes: slashes) }) { return }
    guard begin(key) else { return }
    encoder.writeString(value)
  }

  mutating func encode(_ value: Double, forKey key: Key) throws {
    if value.isFinite, fast(key, { $0.appendDouble(value) }) { return }
    guard begin(key) else { return }
    try encoder.writeDouble(value, at: frame, key: key)
  }

  mutating func encode(_ value: Float, forKey key: Key) throws {
    guard begin(key) else { return }
    try encoder.writeFloat(value, at: frame, key: key)
  }

  mutating func encode(_ value: Int, forKey key: Key) throws {
    if fast(key, { $0.appendSigned(Int64(value)) }) { return }
    guard begin(key) else { return }
    encoder.writeSigned(Int64(value))
  }

  mutating func encode(_ value: Int8, forKey key: Key) throws {
    guard begin(key) else { return }
    encoder.writeSigned(Int64(value))
  }

  mutating func encode(_ value: Int16, forKey key: Key) throws {
    guard begin(key) else { return }
    encoder.writeSigned(Int64(value))
  }

  mutating func encode(_ value: Int32, forKey key: Key) throws {
    guard begin(key) else { return }
    encoder.writeSigned(Int64(value))
  }

  mutating func encode(_ value: Int64, forKey key: Key) throws {
    guard begin(key) else { return }
    encoder.writeSigned(value)
  }

  mutating func encode(_ value: UInt, forKey key: Key) throws {
    guard begin(key) else { return }
    encoder.writeUnsigned(UInt64(value))
  }

  mutating func encode(_ value: UInt8, forKey key: Key) throws {
    guard begin(key) else { return }
    encoder.writeUnsigned(UInt64(value))
  }

  mutating func encode(_ value: UInt16, forKey key: Key) throws {
    guard begin(key) else { return }
    encoder.writeUnsigned(UInt64(value))
  }

  mutating func encode(_ value: UInt32, forKey key: Key) throws {
    guard begin(key) else { return }
    encoder.writeUnsigned(UInt64(value))
  }

  mutating func encode(_ value: UInt64, forKey key: Key) throws {
    guard begin(key) else { return }
    encoder.writeUnsigned(value)
  }
  mutating func encode(_ value: Int128, forKey key: Key) throws {
    guard begin(key) else { return }
    encoder.writeRaw(value.description)
  }

  mutating func encode(_ value: UInt128, forKey key: Key) throws {
    guard begin(key) else { return }
    encoder.writeRaw(value.description)
  }

  mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
    if !fast(key, { _ in }) {
      guard begin(key) else { return }
    }
    try encoder.writeValue(value, at: frame, key: key)
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type,
    forKey key: Key
  ) -> KeyedEncodingContainer<NestedKey> {
    guard begin(key) else {
      return KeyedEncodingContainer(KeyedContainer<NestedKey>(encoder: encoder, frame: 0, id: -1))
    }
    let nested = encoder.pushContainer(kind: .object, key: key, isNested: true, parent: frame)
    return KeyedEncodingContainer(
      KeyedContainer<NestedKey>(encoder: encoder, frame: encoder.frames.count - 1, id: nested)
    )
  }

  mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
    guard begin(key) else { return UnkeyedContainer(encoder: encoder, frame: 0, id: -1) }
    let nested = encoder.pushContainer(kind: .array, key: key, isNested: true, parent: frame)
    return UnkeyedContainer(encoder: encoder, frame: encoder.frames.count - 1, id: nested)
  }

  mutating func superEncoder() -> any Encoder {
    superEncoder(key: DictionaryKey.superKey)
  }

  mutating func superEncoder(forKey key: Key) -> any Encoder {
    superEncoder(key: key)
  }

  private func superEncoder(key: some CodingKey) -> any Encoder {
    guard encoder.enter(frame, id) else { return PlaceEncoder(encoder: encoder, frame: 0, id: -1) }
    encoder.beginMember(frame, key)
    let place = encoder.pushContainer(kind: .slot, key: key, isNested: false, parent: frame)
    return PlaceEncoder(encoder: encoder, frame: encoder.frames.count - 1, id: place)
  }
}

struct UnkeyedContainer: UnkeyedEncodingContainer {
  let encoder: StreamingEncoder
  let frame: Int
  let id: Int

  var codingPath: [any CodingKey] { encoder.containerPath(frame) }

  var count: Int {
    frame < encoder.frames.count && encoder.frames[frame].id == id ? encoder.frames[frame].count : 0
  }

  /// Writes the separator, after closing what was nested since; the new element's index, `nil` once the frame is
  /// gone.
  @inline(__always)
  private func begin() -> Int? {
    if let index = encoder.state.element(frame, id, pretty: encoder.options.pretty) { return index }
    guard encoder.enter(frame, id) else { return nil }
    let index = encoder.frames[frame].count
    encoder.beginElement(frame)
    return index
  }

  mutating func encodeNil() throws {
    guard begin() != nil else { return }
    encoder.writeStatic("null")
  }

  mutating func encode(_ value: Bool) throws {
    guard begin() != nil else { return }
    if value { encoder.writeStatic("true") } else { encoder.writeStatic("false") }
  }

  mutating func encode(_ value: String) throws {
    guard begin() != nil else { return }
    encoder.writeString(value)
  }

  mutating func encode(_ value: Double) throws {
    guard let index = begin() else { return }
    try encoder.writeDouble(value, at: frame, key: IndexKey(index))
  }

  mutating func encode(_ value: Float) throws {
    guard let index = begin() else { return }
    try encoder.writeFloat(value, at: frame, key: IndexKey(index))
  }

  mutating func encode(_ value: Int) throws {
    guard begin() != nil else { return }
    encoder.writeSigned(Int64(value))
  }

  mutating func encode(_ value: Int8) throws {
    guard begin() != nil else { return }
    encoder.writeSigned(Int64(value))
  }

  mutating func encode(_ value: Int16) throws {
    guard begin() != nil else { return }
    encoder.writeSigned(Int64(value))
  }

  mutating func encode(_ value: Int32) throws {
    guard begin() != nil else { return }
    encoder.writeSigned(Int64(value))
  }

  mutating func encode(_ value: Int64) throws {
    guard begin() != nil else { return }
    encoder.writeSigned(value)
  }

  mutating func encode(_ value: UInt) throws {
    guard begin() != nil else { return }
    encoder.writeUnsigned(UInt64(value))
  }

  mutating func encode(_ value: UInt8) throws {
    guard begin() != nil else { return }
    encoder.writeUnsigned(UInt64(value))
  }

  mutating func encode(_ value: UInt16) throws {
    guard begin() != nil else { return }
    encoder.writeUnsigned(UInt64(value))
  }

  mutating func encode(_ value: UInt32) throws {
    guard begin() != nil else { return }
    encoder.writeUnsigned(UInt64(value))
  }

  mutating func encode(_ value: UInt64) throws {
    guard begin() != nil else { return }
    encoder.writeUnsigned(value)
  }
  mutating func encode(_ value: Int128) throws {
    guard begin() != nil else { return }
    encoder.writeRaw(value.description)
  }

  mutating func encode(_ value: UInt128) throws {
    guard begin() != nil else { return }
    encoder.writeRaw(value.description)
  }

  mutating func encode<T: Encodable>(_ value: T) throws {
    guard let index = begin() else { return }
    try encoder.writeValue(value, at: frame, key: IndexKey(index))
  }

  mutating func nestedContainer<NestedKey: CodingKey>(
    keyedBy keyType: NestedKey.Type
  ) -> KeyedEncodingContainer<NestedKey> {
    guard let index = begin() else {
      return KeyedEncodingContainer(KeyedContainer<NestedKey>(encoder: encoder, frame: 0, id: -1))
    }
    let nested = encoder.pushContainer(kind: .object, key: IndexKey(index), isNested: true, parent: frame)
    return KeyedEncodingContainer(
      KeyedContainer<NestedKey>(encoder: encoder, frame: encoder.frames.count - 1, id: nested)
    )
  }

  mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
    guard let index = begin() else { return UnkeyedContainer(encoder: encoder, frame: 0, id: -1) }
    let nested = encoder.pushContainer(kind: .array, key: IndexKey(index), isNested: true, parent: frame)
    return UnkeyedContainer(encoder: encoder, frame: encoder.frames.count - 1, id: nested)
  }

  mutating func superEncoder() -> any Encoder {
    guard let index = begin() else { return PlaceEncoder(encoder: encoder, frame: 0, id: -1) }
    let place = encoder.pushContainer(kind: .slot, key: IndexKey(index), isNested: false, parent: frame)
    return PlaceEncoder(encoder: encoder, frame: encoder.frames.count - 1, id: place)
  }
}

struct SingleValueContainer: SingleValueEncodingContainer {
  let encoder: StreamingEncoder
  let frame: Int
  let id: Int

  var codingPath: [any CodingKey] { encoder.encoderPath(frame) }

  /// Whether the place is still empty (after closing what was nested since).
  private func begin() -> Bool {
    guard encoder.enter(frame, id) else { return false }
    switch encoder.frames[frame].kind {
    case .slot: return true
    case .done:
      encoder.fail(
        .misuse("Attempt to encode value through single value container when previously value already encoded.")
      )
      return false
    case .object, .array:
      // Foundation keeps the container and drops the value: leave that to Foundation.
      encoder.fail(.restart)
      return false
    }
  }

  private func finish() {
    encoder.frames[frame].kind = .done
  }

  /// Writes one scalar with `body` into the place if it is still empty, and marks the place done.
  @inline(__always)
  private func write(_ body: (StreamingEncoder) throws -> Void) rethrows {
    guard begin() else { return }
    try body(encoder)
    finish()
  }

  mutating func encodeNil() throws { write { $0.writeStatic("null") } }

  mutating func encode(_ value: Bool) throws { write { $0.writeStatic(value ? "true" : "false") } }

  mutating func encode(_ value: String) throws { write { $0.writeString(value) } }

  mutating func encode(_ value: Double) throws { try write { try $0.writeDouble(value, at: frame, key: nil) } }

  mutating func encode(_ value: Float) throws { try write { try $0.writeFloat(value, at: frame, key: nil) } }

  mutating func encode(_ value: Int) throws { write { $0.writeSigned(Int64(value)) } }

  mutating func encode(_ value: Int8) throws { write { $0.writeSigned(Int64(value)) } }

  mutating func encode(_ value: Int16) throws { write { $0.writeSigned(Int64(value)) } }

  mutating func encode(_ value: Int32) throws { write { $0.writeSigned(Int64(value)) } }

  mutating func encode(_ value: Int64) throws { write { $0.writeSigned(value) } }

  mutating func encode(_ value: UInt) throws { write { $0.writeUnsigned(UInt64(value)) } }

  mutating func encode(_ value: UInt8) throws { write { $0.writeUnsigned(UInt64(value)) } }

  mutating func encode(_ value: UInt16) throws { write { $0.writeUnsigned(UInt64(value)) } }

  mutating func encode(_ value: UInt32) throws { write { $0.writeUnsigned(UInt64(value)) } }

  mutating func encode(_ value: UInt64) throws { write { $0.writeUnsigned(value) } }

  mutating func encode(_ value: Int128) throws { write { $0.writeRaw(value.description) } }

  mutating func encode(_ value: UInt128) throws { write { $0.writeRaw(value.description) } }

  mutating func encode<T: Encodable>(_ value: T) throws {
    guard begin() else { return }
    let start = encoder.out.count
    try encoder.writeValue(value, at: frame, key: nil)
    guard frame < encoder.frames.count, encoder.frames[frame].id == id else {
      encoder.fail(.restart)
      return
    }
    // A value that wrote nothing is `{}`; one that opened a container leaves it open for more.
    if encoder.frames[frame].kind == .slot {
      if encoder.out.count == start { encoder.writeEmptyObject(depth: encoder.frames[frame].depth) }
      finish()
    }
  }
}

/// An array index as a coding key (`Index 3`), as Foundation names it.
struct IndexKey: CodingKey {
  let index: Int

  init(_ index: Int) { self.index = index }

  init?(stringValue: String) { nil }

  init?(intValue: Int) { self.index = intValue }

  var stringValue: String { "Index \(index)" }

  var intValue: Int? { index }
}
