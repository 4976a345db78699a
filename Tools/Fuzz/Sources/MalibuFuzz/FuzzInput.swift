import Foundation

/// Structured values drawn from the fuzzer's bytes, front to back; an exhausted input yields zeros and empties.
struct FuzzInput {
  private let bytes: UnsafeRawBufferPointer
  private var position = 0

  init(_ bytes: UnsafeRawBufferPointer) {
    self.bytes = bytes
  }

  /// Whether every byte has been taken.
  var isEmpty: Bool { position >= bytes.count }

  mutating func byte() -> UInt8 {
    guard position < bytes.count else { return 0 }
    defer { position += 1 }
    return bytes[position]
  }

  mutating func bool() -> Bool { byte() & 1 == 1 }

  /// A number in `0..<bound` (bound at most 256).
  mutating func choice(_ bound: Int) -> Int { Int(byte()) % bound }

  /// Up to `count` bytes.
  mutating func data(count: Int) -> Data {
    let end = min(bytes.count, position + count)
    guard position < end else { return Data() }
    defer { position = end }
    return Data(bytes[position..<end])
  }

  /// A length byte, then that many bytes.
  mutating func shortData() -> Data { data(count: Int(byte())) }

  /// A length byte, then that many bytes read as UTF-8 (invalid sequences become U+FFFD).
  mutating func shortString() -> String { String(decoding: shortData(), as: UTF8.self) }

  /// Every byte not taken yet.
  mutating func rest() -> Data { data(count: bytes.count - position) }
}
