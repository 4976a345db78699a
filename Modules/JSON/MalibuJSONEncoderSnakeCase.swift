import Foundation

/// `convertToSnakeCase` as Foundation's encoder applies it: words split where lower case turns upper and where a run
/// of capitals ends, joined with `_` and lowercased (`myURLProperty` → `my_url_property`).
func snakeCase(_ key: String) -> String {
  guard !key.isEmpty else { return key }
  var bytes = Array(key.utf8)
  // Foundation's letter categories come from its own Unicode tables: ask it for keys beyond ASCII.
  guard bytes.allSatisfy({ $0 < 0x80 }) else { return foundationSnakeCase(key) }
  func isUpper(_ byte: UInt8) -> Bool { byte >= 0x41 && byte <= 0x5A }
  func isLower(_ byte: UInt8) -> Bool { byte >= 0x61 && byte <= 0x7A }
  let end = bytes.count
  var words: [Range<Int>] = []
  var wordStart = 0
  var searchStart = 1
  while let upper = bytes[searchStart..<end].firstIndex(where: isUpper) {
    words.append(wordStart..<upper)
    guard let lower = bytes[upper..<end].firstIndex(where: isLower) else {
      wordStart = upper
      break
    }
    if lower == upper + 1 {
      wordStart = upper
    } else {
      words.append(upper..<(lower - 1))
      wordStart = lower - 1
    }
    searchStart = lower + 1
  }
  words.append(wordStart..<end)
  for index in bytes.indices where isUpper(bytes[index]) { bytes[index] |= 0x20 }
  var result: [UInt8] = []
  result.reserveCapacity(end + words.count)
  for (position, word) in words.enumerated() {
    if position > 0 { result.append(UInt8(ascii: "_")) }
    result.append(contentsOf: bytes[word])
  }
  return String(decoding: result, as: UTF8.self)
}

/// Converts one key with Foundation's encoder (one `null` member under the key) and reads the key back.
private func foundationSnakeCase(_ key: String) -> String {
  struct OneKey: Encodable {
    let key: String

    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: DictionaryKey.self)
      try container.encodeNil(forKey: DictionaryKey(key))
    }
  }
  let encoder = JSONEncoder()
  encoder.keyEncodingStrategy = .convertToSnakeCase
  guard let data = try? encoder.encode(OneKey(key: key)),
    let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
    let converted = object.keys.first
  else { return key }
  return converted
}
