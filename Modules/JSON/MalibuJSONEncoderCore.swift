import Foundation

/// One open place in the output: a pending value, or an object or array still taking members. Plain data (its key
/// is kept beside it in ``FrameStack``), so reading and writing a frame copies no references.
struct EncoderFrame {
  enum Kind {
    /// A value's place, nothing written yet (becomes `{}` if closed so).
    case slot
    /// A value's place holding a finished scalar.
    case done
    case object
    case array
  }

  var kind: Kind
  /// Tells a container whether the frame it was made for is still this one.
  let id: Int
  /// Made by `nestedContainer`: Foundation leaves such keys out of the paths of encoders and errors below.
  let isNested: Bool
  /// The nesting a container here has (1 at the top).
  let depth: Int
  var count = 0
  /// Where this object's members start in `members` (kept with `sortedKeys` only).
  var memberBase = 0
  /// Where this object's `{` is in the output.
  var start = 0
  /// Two bits per key hash of a small object: a key whose bits are all set already may be a repeat.
  var keyBits: UInt64 = 0
}

/// The stack of open frames. The bottom one, the top-level place, is stored inline: a value whose top-level
/// object nests no containers costs no frame allocation.
struct FrameStack {
  /// A frame above the bottom, with the key it sits under (an index key in arrays; `nil` for dictionaries
  /// written as such). The bottom place has no key.
  private struct Entry {
    var frame: EncoderFrame
    let key: (any CodingKey)?
  }

  private var bottom: EncoderFrame
  private var above: [Entry] = []
  private(set) var count = 1

  init(_ bottom: EncoderFrame) { self.bottom = bottom }

  subscript(index: Int) -> EncoderFrame {
    @inline(__always)
    get {
      precondition(index >= 0 && index < count)
      return index == 0 ? bottom : above[index - 1].frame
    }
    @inline(__always)
    set {
      precondition(index >= 0 && index < count)
      if index == 0 { bottom = newValue } else { above[index - 1].frame = newValue }
    }
  }

  /// Runs `body` on frame `index` in place (the subscript's setter writes a whole frame back).
  @inline(__always)
  mutating func update<R>(_ index: Int, _ body: (inout EncoderFrame) -> R) -> R {
    precondition(index >= 0 && index < count)
    return index == 0 ? body(&bottom) : body(&above[index - 1].frame)
  }

  /// The key frame `index` sits under.
  func key(_ index: Int) -> (any CodingKey)? {
    precondition(index >= 0 && index < count)
    return index == 0 ? nil : above[index - 1].key
  }

  /// Pushes a frame above the bottom (which is never popped before the encode ends).
  mutating func append(_ frame: EncoderFrame, key: (any CodingKey)?) {
    precondition(count > 0)
    above.append(Entry(frame: frame, key: key))
    count += 1
  }

  mutating func removeLast() -> EncoderFrame {
    precondition(count > 0)
    count -= 1
    return count == 0 ? bottom : above.removeLast().frame
  }
}

/// One member written into an open object: where its separator and key are in the output.
struct EncoderMember {
  let separatorStart: Int
  /// The key's contents, without the quotes.
  let keyStart: Int
  let keyEnd: Int
}

/// Where `appendKey` put a member's separator and key.
struct KeyPosition {
  let separatorStart: Int
  let keyStart: Int
  let keyEnd: Int

  func withHash(_ hash: UInt64) -> (UInt64, Int, Int, Int) { (hash, separatorStart, keyStart, keyEnd) }
}

/// Why the stream gave up on a value.
enum EncoderFailure {
  /// The `Encoder` API was used in a way a stream cannot follow: encode again with Foundation's encoder.
  case restart
  /// A use Foundation traps on (two values for one single-value container): thrown as `EncodingError`.
  case misuse(String)
}

/// The streaming encoder: one instance per top-level `encode`, handed to every `encode(to:)` as the `Encoder`.
///
/// `frames` is the stack of open places. Containers remember their frame's index and id; a write into a container
/// first closes every frame above its own (nested containers it has moved on from), and a write into a frame that
/// was closed already gives up (``EncoderFailure/restart``).
final class StreamingEncoder: Encoder {
  static let maximumDepth = 512
  var maximumDepth: Int { Self.maximumDepth }
  let options: EncoderOptions
  /// Everything that changes while encoding, in one struct: a container's common write is one access to it.
  /// It lives behind a pointer, not in a stored property, so its accesses carry no dynamic exclusivity checks:
  /// safe because an encoder is used by one thread during one encode, and containers hold it only meanwhile.
  private let storage: UnsafeMutablePointer<EncoderState>
  var state: EncoderState {
    unsafeAddress { UnsafePointer(storage) }
    unsafeMutableAddress { storage }
  }
  var out: OutputBuffer {
    get { state.out }
    _modify { yield &state.out }
  }
  var frames: FrameStack {
    get { state.frames }
    _modify { yield &state.frames }
  }
  var members: [EncoderMember] {
    get { state.members }
    _modify { yield &state.members }
  }
  /// The frame whose value this encoder writes when asked for a container.
  var current: Int {
    get { state.current }
    _modify { yield &state.current }
  }
  var currentID: Int {
    get { state.currentID }
    _modify { yield &state.currentID }
  }
  var failure: EncoderFailure? {
    get { state.failure }
    _modify { yield &state.failure }
  }
  var tooDeep: Bool {
    get { state.tooDeep }
    _modify { yield &state.tooDeep }
  }

  init(options: EncoderOptions) {
    self.options = options
    // Its frame stack opens with the top-level value's place.
    storage = .allocate(capacity: 1)
    storage.initialize(to: EncoderState())
  }

  deinit {
    storage.pointee.out.deallocate()
    storage.deinitialize(count: 1)
    storage.deallocate()
  }

  var codingPath: [any CodingKey] { encoderPath(current) }

  var userInfo: [CodingUserInfoKey: Any] { options.userInfo }

  /// Writes the top-level value into the top place, which is this encoder's own already.
  func encodeTopLevel<T: Encodable>(_ value: T) throws {
    if try !writeScalar(value, at: 0, key: nil) { try value.encode(to: self) }
  }

  // MARK: Paths

  /// The coding path of the encoder owning frame `index`: Foundation's, which skips `nestedContainer` keys.
  func encoderPath(_ index: Int) -> [any CodingKey] {
    var keys: [any CodingKey] = []
    var at = min(index, frames.count - 1)
    while at > 0 {
      if !frames[at].isNested, let key = frames.key(at) { keys.append(key) }
      at -= 1
    }
    return keys.reversed()
  }

  /// The coding path of a container on frame `index`: its encoder's path and the nested keys since.
  func containerPath(_ index: Int) -> [any CodingKey] {
    var trailing: [any CodingKey] = []
    var at = min(index, frames.count - 1)
    while at > 0, frames[at].isNested {
      if let key = frames.key(at) { trailing.append(key) }
      at -= 1
    }
    return encoderPath(at) + trailing.reversed()
  }

  func encoderPath(_ index: Int, appending key: (any CodingKey)?) -> [any CodingKey] {
    var path = encoderPath(index)
    if let key { path.append(key) }
    return path
  }

  // MARK: Frames

  func fail(_ reason: EncoderFailure) {
    if failure == nil { failure = reason }
  }

  /// Whether a container may write into frame `index`: closes the frames above it, or gives up if it is gone.
  @inline(__always)
  func enter(_ index: Int, _ id: Int) -> Bool {
    if frames.count == index + 1, frames[index].id == id { return true }
    return enterSlow(index, id)
  }

  func enterSlow(_ index: Int, _ id: Int) -> Bool {
    guard failure == nil, index < frames.count, frames[index].id == id else {
      fail(.restart)
      return false
    }
    close(downTo: index + 1)
    return true
  }

  /// Closes every frame at `index` and above, writing their closing brackets.
  func close(downTo index: Int) { state.close(downTo: index, options: options) }

  /// Opens an object or array in the value place `index` (a slot), or returns the one already there.
  func openContainer(at index: Int, id: Int, kind: EncoderFrame.Kind) -> Int? {
    state.openContainer(at: index, id: id, kind: kind, options: options)
  }

  /// Pushes a nested object or array written at the output's end, under `key` of the container on frame `parent`.
  func pushContainer(kind: EncoderFrame.Kind, key: (any CodingKey)?, isNested: Bool, parent: Int) -> Int {
    pushContainer(kind: kind, key: key, isNested: isNested, depth: frames[parent].depth + 1)
  }

  /// Pushes a frame for a container or place at nesting `depth`.
  func pushContainer(kind: EncoderFrame.Kind, key: (any CodingKey)?, isNested: Bool, depth: Int) -> Int {
    state.push(kind: kind, key: key, isNested: isNested, depth: depth)
  }

  // MARK: Members

  /// Writes the separator before the next element of the array on frame `index`.
  @inline(__always)
  func beginElement(_ index: Int) {
    if frames[index].count > 0 { out.append(UInt8(ascii: ",")) }
    frames[index].count += 1
    if options.pretty {
      out.append(0x0A)
      writeIndent(frames[index].depth)
    }
  }

  /// Writes the separator, `key` (converted by the key strategy) and colon of the next member of the object on
  /// frame `index`.
  @inline(__always)
  func beginMember(_ index: Int, _ key: some CodingKey) {
    if options.defaultKeys {
      beginMember(index, text: key.stringValue)
    } else {
      beginMember(index, text: convert(key, in: index))
    }
  }

  func convert(_ key: some CodingKey, in index: Int) -> String {
    switch options.keys {
    case .useDefaultKeys: return key.stringValue
    case .convertToSnakeCase: return snakeCase(key.stringValue)
    case .custom(let converter):
      var path = containerPath(index)
      path.append(key)
      return converter(path).stringValue
    @unknown default: return key.stringValue
    }
  }

  /// Writes the separator, the key `text` (as given) and the colon of the next member of the object on frame `index`.
  func beginMember(_ index: Int, text: String) {
    var text = text
    text.withUTF8 { state.appendMember(index, key: $0, options: options) }
  }

  // MARK: Values

  /// Writes `value` at the output's end: in the object or array on frame `parent` under `key`, or, when `key` is
  /// `nil`, as the value of this encoder's own place (a single-value container, the top level).
  func writeValue<T: Encodable>(_ value: T, at parent: Int, key: (any CodingKey)?) throws {
    if try !writeScalar(value, at: parent, key: key) {
      try writeEncoded(at: parent, key: key) { try value.encode(to: $0) }
    }
  }

  /// Writes `value` as ``writeValue(_:at:key:)`` does when it is a type the encoder writes itself (a string, number,
  /// date, array of numbers…); `false` for other types, which encode themselves.
  @inline(__always)
  private func writeScalar<T: Encodable>(_ value: T, at parent: Int, key: (any CodingKey)?) throws -> Bool {
    if T.self == String.self {
      writeString(unsafeBitCast(value, to: String.self))
    } else if T.self == Int.self {
      writeSigned(Int64(unsafeBitCast(value, to: Int.self)))
    } else if T.self == Double.self {
      try writeDouble(unsafeBitCast(value, to: Double.self), at: parent, key: key)
    } else if T.self == Bool.self {
      if unsafeBitCast(value, to: Bool.self) { writeStatic("true") } else { writeStatic("false") }
    } else if T.self == Date.self {
      try writeDate(unsafeBitCast(value, to: Date.self), at: parent, key: key)
    } else if T.self == Data.self {
      try writeData(unsafeBitCast(value, to: Data.self), at: parent, key: key)
    } else if T.self == URL.self {
      writeString(unsafeBitCast(value, to: URL.self).absoluteString)
    } else if T.self == Decimal.self {
      writeRaw(unsafeBitCast(value, to: Decimal.self).description)
    } else if try writeDirectArray(value, at: parent, key: key) {
      return true
    } else if !options.defaultKeys, let dictionary = value as? any StringKeyedDictionary {
      try writeStringKeyedDictionary(dictionary.entries, at: parent, key: key)
    } else {
      return false
    }
    return true
  }

  /// Runs `body` with this encoder writing the value under `key` in a new place, or in its own place when `key` is
  /// `nil`; a new place left empty becomes `{}`, as Foundation writes it.
  func writeEncoded(
    at parent: Int,
    key: (any CodingKey)?,
    emptyIsObject: Bool = false,
    _ body: (StreamingEncoder) throws -> Void
  ) throws {
    guard key != nil else {
      // The value goes into the place `parent` itself, which this encoder writes while `body` runs.
      let (saved, id, start) = state.enterOwnPlace(parent)
      defer {
        state.current = saved.0
        state.currentID = saved.1
      }
      try body(self)
      // Foundation's custom date and data strategies write `{}` for a closure that wrote nothing, even at the top.
      if emptyIsObject { state.fillEmptyPlace(parent, id, start: start, pretty: options.pretty) }
      return
    }
    let (slot, id, saved) = state.enterSlot(under: parent, key: key)
    defer {
      state.current = saved.0
      state.currentID = saved.1
    }
    try body(self)
    state.leaveSlot(slot, id, options: options)
  }

  func writeDouble(_ value: Double, at parent: Int, key: (any CodingKey)?) throws {
    if value.isFinite {
      writeDouble(value)
    } else {
      try writeNonConforming(value, strategy: options.floats, path: encoderPath(parent, appending: key))
    }
  }

  func writeFloat(_ value: Float, at parent: Int, key: (any CodingKey)?) throws {
    if value.isFinite {
      writeFloat(value)
    } else {
      try writeNonConforming(value, strategy: options.floats, path: encoderPath(parent, appending: key))
    }
  }

  private func writeDate(_ date: Date, at parent: Int, key: (any CodingKey)?) throws {
    switch options.dates {
    case .deferredToDate:
      try writeEncoded(at: parent, key: key) { try date.encode(to: $0) }
    case .secondsSince1970:
      try writeSeconds(date.timeIntervalSince1970, at: parent, key: key)
    case .millisecondsSince1970:
      try writeSeconds(1000.0 * date.timeIntervalSince1970, at: parent, key: key)
    case .iso8601:
      writeString(date.formatted(.iso8601))
    case .custom(let closure):
      // Also `.formatted(_:)`, which Foundation on Linux builds as a custom closure.
      try writeEncoded(at: parent, key: key, emptyIsObject: true) { try closure(date, $0) }
    @unknown default:
      fail(.restart)
    }
  }

  /// Dates as numbers: infinity and NaN always throw, whatever the float strategy (as in Foundation).
  private func writeSeconds(_ seconds: Double, at parent: Int, key: (any CodingKey)?) throws {
    guard seconds.isFinite else {
      try writeNonConforming(seconds, strategy: .throw, path: encoderPath(parent, appending: key))
      return
    }
    writeDouble(seconds)
  }

  private func writeData(_ data: Data, at parent: Int, key: (any CodingKey)?) throws {
    switch options.data {
    case .deferredToData:
      try writeEncoded(at: parent, key: key) { try data.encode(to: $0) }
    case .base64:
      writeString(data.base64EncodedString())
    case .custom(let closure):
      try writeEncoded(at: parent, key: key, emptyIsObject: true) { try closure(data, $0) }
    @unknown default:
      fail(.restart)
    }
  }

  /// Writes arrays of numbers and strings without containers, with the bytes and error paths of the unkeyed
  /// container Foundation uses for them.
  private func writeDirectArray<T>(_ value: T, at parent: Int, key: (any CodingKey)?) throws -> Bool {
    // Every array is one reference: other sizes need no type comparison.
    guard MemoryLayout<T>.size == MemoryLayout<[Int]>.size else { return false }
    if T.self == [String].self {
      writeArray(unsafeBitCast(value, to: [String].self), at: parent, key: key) { item, _ in writeString(item) }
    } else if T.self == [Int].self {
      writeArray(unsafeBitCast(value, to: [Int].self), at: parent, key: key) { item, _ in writeSigned(Int64(item)) }
    } else if T.self == [Double].self {
      try writeArray(unsafeBitCast(value, to: [Double].self), at: parent, key: key) { item, index in
        guard item.isFinite else {
          try writeNonConforming(
            item,
            strategy: options.floats,
            path: encoderPath(parent, appending: key) + [IndexKey(index)]
          )
          return
        }
        writeDouble(item)
      }
    } else if T.self == [Int64].self {
      writeArray(unsafeBitCast(value, to: [Int64].self), at: parent, key: key) { item, _ in writeSigned(item) }
    } else if T.self == [UInt64].self {
      writeArray(unsafeBitCast(value, to: [UInt64].self), at: parent, key: key) { item, _ in writeUnsigned(item) }
    } else {
      return false
    }
    return true
  }

  /// Writes `array` as an unkeyed container of nesting one more than `parent` (or `parent`'s own, when `key` is nil).
  private func writeArray<E>(
    _ array: [E],
    at parent: Int,
    key: (any CodingKey)?,
    _ element: (E, Int) throws -> Void
  ) rethrows {
    let depth = frames[parent].depth + (key == nil ? 0 : 1)
    if depth >= maximumDepth { tooDeep = true }
    out.append(UInt8(ascii: "["))
    if options.pretty {
      for (index, item) in array.enumerated() {
        if index > 0 { out.append(UInt8(ascii: ",")) }
        out.append(0x0A)
        writeIndent(depth)
        try element(item, index)
      }
      if array.isEmpty { out.append(0x0A) }
      out.append(0x0A)
      writeIndent(depth - 1)
    } else {
      for (index, item) in array.enumerated() {
        if index > 0 { out.append(UInt8(ascii: ",")) }
        try element(item, index)
      }
    }
    out.append(UInt8(ascii: "]"))
  }

  /// `[String: V]` under a key strategy other than the default: written with its keys as they are (Foundation's rule).
  private func writeStringKeyedDictionary(
    _ entries: [(String, any Encodable)],
    at parent: Int,
    key: (any CodingKey)?
  ) throws {
    // Foundation gives the dictionary an encoder of its own with no key: its path restarts below it.
    let dictionary = frames.count
    let depth = frames[parent].depth + (key == nil ? 0 : 1)
    let id = pushContainer(kind: .object, key: nil, isNested: true, depth: depth)
    for (name, entry) in entries {
      guard enter(dictionary, id) else { return }
      beginMember(dictionary, text: name)
      // Foundation encodes each entry with the dictionary's encoder keyed by the entry's name.
      let slot = frames.count
      let slotID = pushContainer(kind: .slot, key: DictionaryKey(name), isNested: false, parent: dictionary)
      try writeEntry(entry, at: slot)
      guard slot < frames.count, frames[slot].id == slotID else {
        fail(.restart)
        return
      }
      close(downTo: slot)
    }
    guard enter(dictionary, id) else { return }
    close(downTo: dictionary)
  }

  private func writeEntry<V: Encodable>(_ value: V, at slot: Int) throws {
    let start = out.count
    try writeValue(value, at: slot, key: nil)
    if slot < frames.count, frames[slot].kind == .slot, out.count != start { frames[slot].kind = .done }
  }
}

/// A key of a dictionary written by the encoder itself, or an array index (`Index 3`), as Foundation names them.
struct DictionaryKey: CodingKey {
  let stringValue: String
  let intValue: Int?

  init(_ string: String) {
    stringValue = string
    intValue = nil
  }

  init?(stringValue: String) { self.init(stringValue) }

  init(index: Int) {
    stringValue = "Index \(index)"
    intValue = index
  }

  init?(intValue: Int) { self.init(index: intValue) }

  static let superKey = DictionaryKey("super")
}

/// `[String: V]`, recognised so a key strategy can leave its keys alone, as Foundation does.
protocol StringKeyedDictionary {
  var entries: [(String, any Encodable)] { get }
}

extension Dictionary: StringKeyedDictionary where Key == String, Value: Encodable {
  var entries: [(String, any Encodable)] { map { ($0.key, $0.value as any Encodable) } }
}

/// The mutable state of a ``StreamingEncoder``. Its mutating methods do a whole common write (check the frame, key,
/// value) inside one access, where the class's properties would cost a dynamic exclusivity check per touch.
struct EncoderState {
  var out = OutputBuffer(capacity: 512)
  /// Opens with the top-level value's place.
  var frames = FrameStack(EncoderFrame(kind: .slot, id: 0, isNested: false, depth: 1))
  /// The hashes of the keys of each big object (16 keys or more) by frame id, to find a repeated key without a scan.
  var keyHashes: [Int: Set<UInt64>] = [:]
  var members: [EncoderMember] = []
  var failure: EncoderFailure?
  /// A container nested deeper than Foundation's writer allows: reported when the value has been written.
  var tooDeep = false

  /// The encoder's own place (see ``StreamingEncoder/current``).
  var current = 0
  var currentID = 0
  var nextID = 1

  /// Pushes a frame for a container or place at nesting `depth`, writing its opening bracket.
  mutating func push(kind: EncoderFrame.Kind, key: (any CodingKey)?, isNested: Bool, depth: Int) -> Int {
    let id = nextID
    nextID += 1
    frames.append(
      EncoderFrame(kind: kind, id: id, isNested: isNested, depth: depth, memberBase: members.count, start: out.count),
      key: key
    )
    if kind != .slot {
      out.append(kind == .object ? UInt8(ascii: "{") : UInt8(ascii: "["))
      if depth >= StreamingEncoder.maximumDepth { tooDeep = true }
    }
    return id
  }

  /// Closes the top-level place and hands over the output: why encoding gave up (if it did), whether it went too
  /// deep, whether the value wrote nothing at all, and the output's block and count (the caller frees the block).
  mutating func finish(
    options: EncoderOptions
  ) -> (failure: EncoderFailure?, tooDeep: Bool, empty: Bool, output: (UnsafeMutablePointer<UInt8>, Int)) {
    var empty = false
    if failure == nil {
      if frames[0].kind == .slot, out.isEmpty {
        empty = true
      } else {
        if frames[0].kind == .slot { frames[0].kind = .done }
        close(downTo: 0, options: options)
      }
    }
    return (failure, tooDeep, empty, out.take())
  }

  /// Makes the place `parent` the encoder's own; returns the encoder's place before, the place's id and where the
  /// output ends.
  mutating func enterOwnPlace(_ parent: Int) -> ((Int, Int), Int, Int) {
    let saved = (current, currentID)
    let id = frames[parent].id
    (current, currentID) = (parent, id)
    return (saved, id, out.count)
  }

  /// Writes `{}` in the place `index` if it is still open and nothing was written since `start`.
  mutating func fillEmptyPlace(_ index: Int, _ id: Int, start: Int, pretty: Bool) {
    guard index < frames.count, frames[index].id == id, frames[index].kind == .slot, out.count == start else { return }
    appendEmptyObject(depth: frames[index].depth, pretty: pretty)
    frames[index].kind = .done
  }

  /// Opens an object or array in the encoder's own place; returns the place and the container's id (`nil` when
  /// the place cannot take one).
  mutating func openOwnContainer(kind: EncoderFrame.Kind, options: EncoderOptions) -> (Int, Int?) {
    (current, openContainer(at: current, id: currentID, kind: kind, options: options))
  }

  /// Pushes a new place under `key` of the container on frame `parent` and makes it the encoder's own; returns the
  /// place and the encoder's place before.
  mutating func enterSlot(under parent: Int, key: (any CodingKey)?) -> (Int, Int, (Int, Int)) {
    let saved = (current, currentID)
    let slot = frames.count
    let id = push(kind: .slot, key: key, isNested: false, depth: frames[parent].depth + 1)
    (current, currentID) = (slot, id)
    return (slot, id, saved)
  }

  /// Closes the place `slot` a value was written into (`{}` if it wrote nothing), or gives up if it is gone.
  mutating func leaveSlot(_ slot: Int, _ id: Int, options: EncoderOptions) {
    guard slot < frames.count, frames[slot].id == id else {
      if failure == nil { failure = .restart }
      return
    }
    close(downTo: slot, options: options)
  }

  /// Whether frame `index` with `id` is the innermost open one: the common case, which needs no closing first.
  @inline(__always)
  func isTop(_ index: Int, _ id: Int) -> Bool {
    frames.count == index + 1 && frames[index].id == id
  }

  /// Appends the separator, quoted `key` and colon of the next member of the object on frame `index`, and gives up
  /// (``EncoderFailure/restart``) on a key the object already has: Foundation keeps only its last value.
  mutating func appendMember(_ index: Int, key: UnsafeBufferPointer<UInt8>, options: EncoderOptions) {
    let count = frames[index].count
    let separatorStart = out.count
    if count > 0 { out.append(UInt8(ascii: ",")) }
    if options.pretty {
      out.append(0x0A)
      out.appendIndent(frames[index].depth)
    }
    let keyStart = out.count + 1
    out.appendEscaped(key, escapingSlashes: options.escapeSlashes)
    let keyEnd = out.count - 1
    if options.pretty { out.appendStatic(" : ") } else { out.append(UInt8(ascii: ":")) }
    let hash = Self.keyHash(out[keyStart..<keyEnd])
    if frames.update(index, { Self.countMember(&$0, hash: hash) }) {
      checkDuplicate(index, hash: hash, big: count >= 16, keyStart: keyStart, keyEnd: keyEnd, before: separatorStart)
    }
    if options.sorted {
      members.append(EncoderMember(separatorStart: separatorStart, keyStart: keyStart, keyEnd: keyEnd))
    }
  }

  /// Counts a member of `frame` whose key has `hash`; `true` when the key may be one the object has already: its
  /// two hash bits were set by earlier keys, or the object is big (16 keys or more, where a set of hashes decides).
  @inline(__always)
  private static func countMember(_ frame: inout EncoderFrame, hash: UInt64) -> Bool {
    let count = frame.count
    frame.count = count + 1
    guard count < 16 else { return true }
    let bits: UInt64 = 1 << (hash & 63) | 1 << (hash >> 6 & 63)
    let seen = frame.keyBits & bits == bits
    frame.keyBits |= bits
    return count > 0 && seen
  }

  /// Gives up on the object on frame `index` if the key just written (`keyStart..<keyEnd`, with `hash`) is one of
  /// its earlier keys, which are in the output before `limit`. A big object first asks its set of hashes; a
  /// possible repeat compares with the earlier keys, found by reading the object back.
  private mutating func checkDuplicate(
    _ index: Int,
    hash: UInt64,
    big: Bool,
    keyStart: Int,
    keyEnd: Int,
    before limit: Int
  ) {
    if big {
      let id = frames[index].id
      if keyHashes[id] == nil { keyHashes[id] = Set(keyRanges(index, before: limit).map { Self.keyHash(out[$0]) }) }
      if keyHashes[id]?.insert(hash).inserted == true { return }
    }
    for range in keyRanges(index, before: limit) where out[range].elementsEqual(out[keyStart..<keyEnd]) {
      if failure == nil { failure = .restart }
      return
    }
  }

  /// FNV-1a of a key's escaped bytes.
  private static func keyHash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
    return hash
  }

  /// Where the keys (their contents, without quotes) of the object on frame `index` are, read back from the output
  /// the encoder wrote between its `{` and `limit`: complete members, since members nested in them are closed.
  private func keyRanges(_ index: Int, before limit: Int) -> [Range<Int>] {
    let quote = UInt8(ascii: "\"")
    let backslash = UInt8(ascii: "\\")
    var ranges: [Range<Int>] = []
    var at = frames[index].start + 1
    /// The index after the string whose opening quote is at `at`.
    func skipString(_ at: Int) -> Int {
      var at = at + 1
      while out[at] != quote { at += out[at] == backslash ? 2 : 1 }
      return at + 1
    }
    while at < limit {
      // Separators and (pretty) indentation, then the key.
      while at < limit, out[at] != quote { at += 1 }
      guard at < limit else { break }
      let end = skipString(at)
      ranges.append((at + 1)..<(end - 1))
      at = end
      // The value: up to the next comma outside strings and nested containers.
      var depth = 0
      while at < limit {
        let byte = out[at]
        if byte == quote {
          at = skipString(at)
          continue
        }
        if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
          depth += 1
        } else if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
          depth -= 1
        } else if byte == UInt8(ascii: ","), depth == 0 {
          break
        }
        at += 1
      }
    }
    return ranges
  }

  /// The common unkeyed write: when frame `index` is on top, appends the separator and returns the new element's index.
  @inline(__always)
  mutating func element(_ index: Int, _ id: Int, pretty: Bool) -> Int? {
    guard isTop(index, id) else { return nil }
    let count = frames[index].count
    if count > 0 { out.append(UInt8(ascii: ",")) }
    frames.update(index) { $0.count = count + 1 }
    if pretty {
      out.append(0x0A)
      out.appendIndent(frames[index].depth)
    }
    return count
  }

  /// The common keyed write: when frame `index` is on top, appends `key` and the scalar `value` and returns true.
  @inline(__always)
  mutating func member(
    _ index: Int,
    _ id: Int,
    key: String,
    options: EncoderOptions,
    _ value: (inout OutputBuffer) -> Void
  ) -> Bool {
    guard isTop(index, id) else { return false }
    var key = key
    key.withUTF8 { appendMember(index, key: $0, options: options) }
    value(&out)
    return true
  }
}

extension EncoderState {
  /// Closes every frame at `index` and above, writing their closing brackets.
  mutating func close(downTo index: Int, options: EncoderOptions) {
    while frames.count > index {
      let frame = frames.removeLast()
      switch frame.kind {
      case .done: break
      case .slot: appendEmptyObject(depth: frame.depth, pretty: options.pretty)
      case .object: closeObject(frame, options: options)
      case .array:
        if options.pretty {
          if frame.count == 0 { out.append(0x0A) }
          out.append(0x0A)
          out.appendIndent(frame.depth - 1)
        }
        out.append(UInt8(ascii: "]"))
      }
    }
  }

  private mutating func closeObject(_ frame: EncoderFrame, options: EncoderOptions) {
    if options.sorted, frame.count > 1 { sortMembers(frame, pretty: options.pretty) }
    if options.pretty {
      if frame.count == 0 { out.append(0x0A) }
      out.append(0x0A)
      out.appendIndent(frame.depth - 1)
    }
    out.append(UInt8(ascii: "}"))
    // One by one: a few members, where the ranged removal's generic path costs more.
    while members.count > frame.memberBase { members.removeLast() }
  }

  /// Reorders the members of `frame`, the last bytes of the output, by their keys' unescaped bytes.
  private mutating func sortMembers(_ frame: EncoderFrame, pretty: Bool) {
    let base = frame.memberBase
    let end = out.count
    func contents(_ index: Int) -> Range<Int> {
      let start = members[base + index].keyStart - 1
      return start..<(base + index + 1 < members.count ? members[base + index + 1].separatorStart : end)
    }
    func key(_ index: Int) -> UnsafeBufferPointer<UInt8> {
      out[members[base + index].keyStart..<members[base + index].keyEnd]
    }
    var isSorted = true
    for index in 1..<frame.count where !escapedKeyPrecedes(key(index - 1), key(index)) {
      isSorted = false
      break
    }
    if isSorted { return }
    let order = (0..<frame.count).sorted { escapedKeyPrecedes(key($0), key($1)) }
    let start = members[base].separatorStart
    var sorted: [UInt8] = []
    sorted.reserveCapacity(end - start)
    for (position, index) in order.enumerated() {
      if position > 0 { sorted.append(UInt8(ascii: ",")) }
      if pretty {
        sorted.append(0x0A)
        sorted.append(contentsOf: repeatElement(0x20, count: 2 * frame.depth))
      }
      sorted.append(contentsOf: out[contents(index)])
    }
    out.overwrite(at: start, with: sorted)
  }

  /// Opens an object or array in the value place `index` (a slot), or returns the one already there.
  mutating func openContainer(at index: Int, id: Int, kind: EncoderFrame.Kind, options: EncoderOptions) -> Int? {
    guard failure == nil, index < frames.count, frames[index].id == id else {
      if failure == nil { failure = .restart }
      return nil
    }
    switch frames[index].kind {
    case .slot:
      close(downTo: index + 1, options: options)
      frames[index].kind = kind
      frames[index].memberBase = members.count
      frames[index].start = out.count
      out.append(kind == .object ? UInt8(ascii: "{") : UInt8(ascii: "["))
      if frames[index].depth >= StreamingEncoder.maximumDepth { tooDeep = true }
      return frames[index].id
    case let existing where existing == kind:
      close(downTo: index + 1, options: options)
      return frames[index].id
    default:
      failure =
        failure
        ?? (.misuse(
          kind == .object
            ? "Attempt to push new keyed encoding container when already previously encoded at this path."
            : "Attempt to push new unkeyed encoding container when already previously encoded at this path."
        ))
      return nil
    }
  }

  /// Appends an empty object at nesting `depth`, as Foundation writes `{}` (`{\n\n}` when pretty).
  mutating func appendEmptyObject(depth: Int, pretty: Bool) {
    if pretty {
      out.appendStatic("{\n\n")
      out.appendIndent(depth - 1)
      out.append(UInt8(ascii: "}"))
    } else {
      out.appendStatic("{}")
    }
    if depth >= StreamingEncoder.maximumDepth { tooDeep = true }
  }
}
