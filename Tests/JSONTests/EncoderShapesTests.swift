import Foundation
import Testing

@testable import MalibuJSON

/// The body of an api-mix POST.
struct OrderBody: Codable, Sendable {
  var sku: String
  var quantity: Int
  var note: String?
}

struct Scalars: Codable, Sendable {
  var int = Int.min
  var int8 = Int8.min
  var int16 = Int16.max
  var int32 = Int32.min
  var int64 = Int64.max
  var uint = UInt.max
  var uint8 = UInt8.max
  var uint16 = UInt16.max
  var uint32 = UInt32.max
  var uint64 = UInt64.max
  var int128 = Int128.min
  var uint128 = UInt128.max
  var float: Float = 0.1
  var double = 0.1
  var bool = true
  var string = "s"
  var optionalNil: Int? = nil
  var optional: Int? = 3
}

/// A value with every kind of member under keys that key strategies change.
struct CamelCased: Codable, Sendable {
  var myURLProperty = "https://example.com/a/b"
  var oneTwoThree = [1, 2, 3]
  var nestedValue = OrderBody(sku: "A-1", quantity: 2, note: nil)
  var plainDictionary = ["keepMe": 1, "AndMe": 2]
  var intDictionary = [1: "one", 20: "twenty"]
}

let doubles: [Double] = [
  0, -0.0, 1, -1, 0.1, 0.5, 1.5, 100, 1e15, 1e16, 1e21, 1e22, 1e-7, 1e-5, 1e-4, 123.456, -98.765,
  Double.leastNonzeroMagnitude, Double.leastNormalMagnitude, Double.greatestFiniteMagnitude,
  -Double.greatestFiniteMagnitude,
  9_007_199_254_740_992, 9_007_199_254_740_994, 9_007_199_254_740_996, 18_014_398_509_481_984, 4.35, 2.0 / 3.0, .pi,
  1e300,
  Double(Int64.max), Double(Int64.min), 0x1p-1022, 12_345_678.9,
]

let floats: [Float] = [
  0, -0.0, 1, 0.1, 1e7, 1e8, 16_777_216, 16_777_218, 33_554_436, 1e-4, 1e-5, 3.4028235e38,
  Float.leastNonzeroMagnitude, 1.1754944e-38, 0.3, 123.456, -2.5, 1e15,
]

let sampleStrings: [String] = [
  "", "plain", "quote \" backslash \\ slash /", "http://example.com/a/b", "</script>",
  "\u{0}\u{1}\u{7}\u{8}\u{9}\u{A}\u{B}\u{C}\u{D}\u{E}\u{F}\u{10}\u{1F}\u{7F}",
  "tab\tnewline\nreturn\r", "é ñ ü 中文 日本語 한국어", "emoji 👍🏽 🇫🇷", "\u{2028}\u{2029}", "\u{FEFF}bom",
  String(repeating: "long ", count: 200),
  // Escapes that outgrow the output buffer's first block while they are written.
  String(repeating: "\u{1}\"/", count: 300),
]

@Suite struct EncoderShapesTests {
  @Test(arguments: EncoderConfiguration.formattings)
  func apiMixBodies(configuration: EncoderConfiguration) {
    let encoder = configuration.encoder
    expectSameAsFoundation(OrderBody(sku: "SKU-123/x", quantity: 3, note: "gift \"wrap\""), encoder)
    expectSameAsFoundation(OrderBody(sku: "SKU-1", quantity: -7, note: nil), encoder)
    let items = (0..<20).map { index in
      JSONDifferential.Item(
        id: index,
        uuid: UUID().uuidString,
        name: "name \(index) ü",
        score: Double(index) * 1.37,
        active: index % 2 == 0,
        tags: index % 3 == 0 ? [] : ["a", "b/c"],
        location: .init(lat: 48.85 + Double(index), lon: -2.35),
        note: index % 4 == 0 ? nil : "note"
      )
    }
    expectSameAsFoundation(items, encoder)
    expectSameAsFoundation([JSONDifferential.Item](), encoder)
  }

  @Test(arguments: EncoderConfiguration.formattings)
  func scalarsAndNumbers(configuration: EncoderConfiguration) {
    let encoder = configuration.encoder
    expectSameAsFoundation(Scalars(), encoder)
    for value in doubles {
      expectSameAsFoundation(value, encoder, "\(value)")
      expectSameAsFoundation(-value, encoder, "\(-value)")
      expectSameAsFoundation(["d": value], encoder, "\(value)")
    }
    expectSameAsFoundation(doubles, encoder)
    expectSameAsFoundation(doubles.map { [$0] }, encoder)
    for value in floats {
      expectSameAsFoundation(value, encoder, "\(value)")
      expectSameAsFoundation(["f": value], encoder, "\(value)")
    }
    expectSameAsFoundation(floats, encoder)
    for value in [Int64.min, -1, 0, 9, 10, 99, 100, Int64.max] {
      expectSameAsFoundation(value, encoder)
      expectSameAsFoundation([value], encoder)
    }
    expectSameAsFoundation([UInt64.max, 0], encoder)
    expectSameAsFoundation([Int8.min], encoder)
    expectSameAsFoundation([UInt8.max], encoder)
    expectSameAsFoundation([Int16.min], encoder)
    expectSameAsFoundation([UInt16.max], encoder)
    expectSameAsFoundation([Int32.min], encoder)
    expectSameAsFoundation([UInt32.max], encoder)
    expectSameAsFoundation([UInt.max], encoder)
    expectSameAsFoundation([Int128.max], encoder)
    expectSameAsFoundation([UInt128.max], encoder)
    expectSameAsFoundation([true, false], encoder)
    for decimal in ["0", "-1.5", "3.14159265358979323846264338327950288", "1e100", "-0.000001"] {
      expectSameAsFoundation(Decimal(string: decimal)!, encoder, decimal)
      expectSameAsFoundation(["d": Decimal(string: decimal)!], encoder, decimal)
    }
  }

  @Test func randomNumbers() {
    var generator = SystemRandomNumberGenerator()
    var encoder = MalibuJSONEncoder()
    encoder.nonConformingFloatEncodingStrategy = .convertToString(
      positiveInfinity: "+",
      negativeInfinity: "-",
      nan: "n"
    )
    let doubles = (0..<3000).map { index -> Double in
      switch index % 3 {
      case 0: Double(bitPattern: generator.next())
      case 1: Double(Int64.random(in: -1 << 60...1 << 60, using: &generator)) / Double(1 << Int.random(in: 0...40))
      default: Double.random(in: -1e6...1e6, using: &generator).rounded() * 0.001
      }
    }
    expectSameAsFoundation(doubles, encoder)
    let floats = (0..<3000).map { _ in Float(bitPattern: UInt32.random(in: 0...UInt32.max, using: &generator)) }
    expectSameAsFoundation(floats, encoder)
    expectSameAsFoundation((0..<1000).map { _ in Int64.random(in: .min ... .max, using: &generator) }, encoder)
  }

  @Test(arguments: EncoderConfiguration.formattings)
  func strings(configuration: EncoderConfiguration) {
    let encoder = configuration.encoder
    for string in sampleStrings {
      expectSameAsFoundation(string, encoder, string)
      expectSameAsFoundation([string: string], encoder, string)
    }
    // An escape at every position around the sixteen-byte chunks the writer checks at once.
    for length in 0..<40 {
      for special in ["\"", "\\", "/", "\u{1F}", "\u{0}", "é", "\n"] {
        let text = String(repeating: "a", count: length) + special + String(repeating: "b", count: 39 - length)
        expectSameAsFoundation(text, encoder)
        expectSameAsFoundation(String(repeating: "c", count: length) + special, encoder)
      }
    }
    let control = String(decoding: (0..<0x80).map { UInt8($0) }, as: UTF8.self)
    expectSameAsFoundation(control, encoder)
    expectSameAsFoundation(sampleStrings, encoder)
    expectSameAsFoundation(URL(string: "https://example.com/path?q=a/b&x=%20")!, encoder)
    expectSameAsFoundation(["u": URL(string: "file:///tmp/x")!], encoder)
  }

  @Test(arguments: EncoderConfiguration.formattings)
  func everyASCIIByteInEveryPlaceOfAWord(configuration: EncoderConfiguration) {
    // The writer checks eight bytes at once, then the last few: each byte in each lane, and in a short tail.
    let encoder = configuration.encoder
    let specials = (0..<0x80).map { String(UnicodeScalar(UInt8($0))) } + ["é", "\u{7FF}", "€", "😀"]
    for special in specials {
      for position in 0..<17 {
        let text = String(repeating: "a", count: position) + special + String(repeating: "b", count: 16 - position)
        expectSameAsFoundation(text, encoder)
        expectSameAsFoundation(String(repeating: "c", count: position) + special, encoder)
      }
    }
  }

  @Test func copiesKeepTheirOwnOptions() throws {
    let plain = MalibuJSONEncoder()
    var sorted = plain
    sorted.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    var snake = sorted
    snake.keyEncodingStrategy = .convertToSnakeCase
    let value = ["b/": 1, "a/": 2]
    #expect(String(decoding: try plain.encodeBytes(["a/"]), as: UTF8.self) == #"["a\/"]"#)
    #expect(String(decoding: try sorted.encodeBytes(value), as: UTF8.self) == #"{"a/":2,"b/":1}"#)
    expectSameAsFoundation(value, sorted)
    expectSameAsFoundation(SnakeSample(firstName: "x"), snake)
    expectSameAsFoundation(SnakeSample(firstName: "x"), sorted)
  }

  @Test(arguments: EncoderConfiguration.formattings)
  func containers(configuration: EncoderConfiguration) {
    let encoder = configuration.encoder
    expectSameAsFoundation([Int](), encoder)
    expectSameAsFoundation([String: Int](), encoder)
    expectSameAsFoundation([[Int]](), encoder)
    expectSameAsFoundation([[Int]()], encoder)
    expectSameAsFoundation([[String: Int]()], encoder)
    expectSameAsFoundation(["a": [Int](), "b": [1]], encoder)
    expectSameAsFoundation(["a": ["b": ["c": [1, 2]]], "d": [:]], encoder)
    expectSameAsFoundation([[[1], [2, 3]], [[]]], encoder)
    expectSameAsFoundation([1, nil, 3] as [Int?], encoder)
    expectSameAsFoundation(Int?.none, encoder)
    expectSameAsFoundation(
      ["z": 1, "a": 2, "é": 3, "B": 4, "aa": 5, "a\"": 6, "a#": 7, "a\n": 8, "a/": 9, "": 10],
      encoder
    )
    expectSameAsFoundation([3: "c", 1: "a", -2: "b", 10: "j"], encoder)
    expectSameAsFoundation([true: 1, false: 0], encoder)
    expectSameAsFoundation(Dictionary(uniqueKeysWithValues: (0..<100).map { ("key\($0)", $0) }), encoder)
    expectSameAsFoundation(Set(["x"]), encoder)
    expectSameAsFoundation(["nested": [["deep": ["deeper": [1.5, -0.0]]]]], encoder)
    expectSameAsFoundation(CamelCased(), encoder)
  }

  @Test func keyStrategies() {
    let keys = [
      "myURLProperty", "_leading", "trailing_", "__both__", "URLValue", "a", "", "oneTwoThree", "ABC", "aBC", "aB1c",
      "abc1Def", "already_snake", "camelCase_With_Underscore", "x", "XMLHttpRequest", "über_Ästhetik", "ǅemo", "isÉté",
    ]
    var snake = MalibuJSONEncoder()
    snake.keyEncodingStrategy = .convertToSnakeCase
    var custom = MalibuJSONEncoder()
    custom.keyEncodingStrategy = .custom { path in
      DictionaryKey("\(path.count)-\(path.map(\.stringValue).joined(separator: "."))")
    }
    for (index, encoder) in [snake, custom].enumerated() {
      for key in keys {
        expectSameAsFoundation(KeyedValues(keys: [key]), encoder, key)
      }
      // In snake case "ABC" and "aBC" both become "a_bc": Foundation keeps the last, via the restart.
      expectSameAsFoundation(KeyedValues(keys: keys), encoder, restarts: index == 0)
      expectSameAsFoundation(CamelCased(), encoder)
      expectSameAsFoundation(["outerKey": CamelCased()], encoder)
      expectSameAsFoundation([CamelCased()], encoder)
      expectSameAsFoundation(["topLevelDictionaryKey": ["innerKey": 1]], encoder)
      expectSameAsFoundation(Nesting(), encoder)
      expectSameAsFoundation(Inheriting(), encoder)
    }
  }

  @Test func dateAndDataStrategies() {
    let dates = [
      Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1_700_000_000.123),
      Date(timeIntervalSinceReferenceDate: -1.5),
    ]
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss.SSS/Z"
    let strategies: [(String, MalibuJSONEncoder.DateEncodingStrategy)] = [
      ("deferred", .deferredToDate), ("seconds", .secondsSince1970), ("milliseconds", .millisecondsSince1970),
      ("iso8601", .iso8601), ("formatted", .formatted(formatter)),
      (
        "custom",
        .custom { date, encoder in
          var container = encoder.singleValueContainer()
          try container.encode("at \(date.timeIntervalSince1970)")
        }
      ),
      (
        "custom keyed",
        .custom { date, encoder in
          var container = encoder.container(keyedBy: DictionaryKey.self)
          try container.encode(date.timeIntervalSince1970, forKey: DictionaryKey("t"))
        }
      ),
      ("custom empty", .custom { _, _ in }),
    ]
    EncoderConfiguration.forEachFormatting(setting: \.dateEncodingStrategy, to: strategies) { encoder, name in
      expectSameAsFoundation(dates, encoder, name)
      expectSameAsFoundation(dates[1], encoder, name)
      expectSameAsFoundation(["when": dates[2]], encoder, name)
      expectSameAsFoundation(Dated(), encoder, name)
    }
    let blobs = [Data(), Data([0]), Data("hello/world?>>>".utf8), Data((0..<255).map { UInt8($0) })]
    let dataStrategies: [(String, MalibuJSONEncoder.DataEncodingStrategy)] = [
      ("deferred", .deferredToData), ("base64", .base64),
      (
        "custom",
        .custom { data, encoder in
          var container = encoder.unkeyedContainer()
          try container.encode(data.count)
        }
      ),
      ("custom empty", .custom { _, _ in }),
    ]
    EncoderConfiguration.forEachFormatting(setting: \.dataEncodingStrategy, to: dataStrategies) { encoder, name in
      expectSameAsFoundation(blobs, encoder, name)
      expectSameAsFoundation(blobs[2], encoder, name)
      expectSameAsFoundation(["blob": blobs[3]], encoder, name)
    }
  }

  @Test func nonConformingFloats() {
    var encoder = MalibuJSONEncoder()
    encoder.nonConformingFloatEncodingStrategy = .convertToString(
      positiveInfinity: "+inf/\"",
      negativeInfinity: "-inf",
      nan: "NaN"
    )
    for value in [Double.nan, .infinity, -.infinity, 1.5] {
      expectSameAsFoundation(value, encoder)
      expectSameAsFoundation([value], encoder)
      expectSameAsFoundation(["v": value], encoder)
      expectSameAsFoundation(Float(value), encoder)
      expectSameAsFoundation([Float(value)], encoder)
      expectSameAsFoundation(NestedFloats(value: value), encoder)
    }
    // Dates as numbers throw whatever the strategy says.
    encoder.dateEncodingStrategy = .secondsSince1970
    expectSameAsFoundation(["d": Date(timeIntervalSince1970: .nan)], encoder)
  }

  @Test func userInfoReachesEveryValue() {
    var encoder = MalibuJSONEncoder()
    let key = CodingUserInfoKey(rawValue: "prefix")!
    encoder.userInfo = [key: "p-"]
    expectSameAsFoundation([ReadsUserInfo(), ReadsUserInfo()], encoder)
    expectSameAsFoundation(["a": ReadsUserInfo()], encoder)
  }

  @Test(arguments: EncoderConfiguration.formattings)
  func codableAPIShapes(configuration: EncoderConfiguration) {
    let encoder = configuration.encoder
    expectSameAsFoundation(Nesting(), encoder)
    expectSameAsFoundation([Nesting(), Nesting()], encoder)
    expectSameAsFoundation(Inheriting(), encoder)
    expectSameAsFoundation([Inheriting()], encoder)
    expectSameAsFoundation(UnkeyedSuperEncoding(), encoder)
    expectSameAsFoundation(SuperForKey(), encoder)
    expectSameAsFoundation(TwiceKeyed(), encoder)
    expectSameAsFoundation(["w": Wrapper(inner: ["a": 1])], encoder)
    expectSameAsFoundation(Wrapper(inner: [1, 2]), encoder)
    expectSameAsFoundation(WrapperThenKeyed(), encoder)
    expectSameAsFoundation(["nothing": EncodesNothing()], encoder)
    expectSameAsFoundation([EncodesNothing()], encoder)
    expectSameAsFoundation(CodingPaths(), encoder)
    expectSameAsFoundation(["a": [CodingPaths()]], encoder)
  }

  @Test(arguments: EncoderConfiguration.formattings)
  func shapesTheStreamHandsToFoundation(configuration: EncoderConfiguration) {
    let encoder = configuration.encoder
    expectSameAsFoundation(ReentersNested(), encoder, restarts: true)
    expectSameAsFoundation(DuplicateKey(), encoder, restarts: true)
    expectSameAsFoundation(["x": LateSuper()], encoder, restarts: true)
    var colliding = encoder
    colliding.keyEncodingStrategy = .custom { _ in DictionaryKey("same") }
    expectSameAsFoundation(KeyedValues(keys: ["a", "b", "c"]), colliding, restarts: true)
  }

  @Test(arguments: EncoderConfiguration.formattings)
  func repeatedKeysAreFoundByReadingTheObjectBack(configuration: EncoderConfiguration) throws {
    // Keys whose hash bits collide are compared with the earlier keys read back from the output, past values
    // holding quotes, commas and brackets; a big object keeps a set of hashes.
    let many = (0..<40).map { "k\($0)" }
    let table: [(keys: [String], repeated: Bool)] = [
      (many, false),
      (many + ["k7"], true),
      (["a", "b\"q", "c/", "b\"q"], true),
      (["x", "y", "x,", "x\\"], false),
      (["only"], false),
      ((0..<300).map { "key \($0)" }, false),
      ((0..<300).map { "key \($0)" } + ["key 299"], true),
    ]
    for (keys, repeated) in table {
      let value = TrickyMembers(keys: keys)
      expectSameAsFoundation(value, configuration.encoder, "\(keys.suffix(2))", restarts: repeated)
      #expect(try configuration.encoder.encodeReportingRestart(value).restarted == repeated, "\(keys.suffix(2))")
    }
  }
}

/// Encodes `keys[i]: i` through a keyed container with these string keys.
struct KeyedValues: Encodable {
  let keys: [String]

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: DictionaryKey.self)
    for (index, key) in keys.enumerated() { try container.encode(index, forKey: DictionaryKey(key)) }
  }
}

/// Members under `keys` whose values are strings and containers full of JSON punctuation.
struct TrickyMembers: Encodable {
  let keys: [String]

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: DictionaryKey.self)
    for (index, key) in keys.enumerated() {
      switch index % 3 {
      case 0: try container.encode("\",}]{[\\\"", forKey: DictionaryKey(key))
      case 1: try container.encode(["a,\"b": [[1], [2, 3]]], forKey: DictionaryKey(key))
      default: try container.encode([["}": "]"], [:]], forKey: DictionaryKey(key))
      }
    }
  }
}

struct Dated: Encodable {
  var created = Date(timeIntervalSince1970: 86_400.5)
  var optional: Date? = Date(timeIntervalSince1970: 1)
  var none: Date? = nil
}

struct NestedFloats: Encodable {
  let value: Double

  enum Keys: String, CodingKey { case outer, inner, list }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Keys.self)
    var nested = container.nestedContainer(keyedBy: Keys.self, forKey: .outer)
    try nested.encode(value, forKey: .inner)
    var list = nested.nestedUnkeyedContainer(forKey: .list)
    try list.encode(Float(value))
    try list.encode([value])
  }
}

struct ReadsUserInfo: Encodable {
  func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    let prefix = encoder.userInfo[CodingUserInfoKey(rawValue: "prefix")!] as? String ?? "none"
    try container.encode(prefix + encoder.codingPath.map(\.stringValue).joined(separator: "."))
  }
}

/// Nested keyed and unkeyed containers, written into after the nested ones.
struct Nesting: Encodable {
  enum Keys: String, CodingKey { case firstName, nestedObject, nestedList, afterBoth, deepValue }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Keys.self)
    try container.encode("a", forKey: .firstName)
    var object = container.nestedContainer(keyedBy: Keys.self, forKey: .nestedObject)
    try object.encode(1, forKey: .deepValue)
    var inner = object.nestedUnkeyedContainer(forKey: .nestedList)
    try inner.encode(true)
    var innerObject = inner.nestedContainer(keyedBy: Keys.self)
    try innerObject.encodeNil(forKey: .firstName)
    var innerList = inner.nestedUnkeyedContainer()
    try innerList.encode(2.5)
    try inner.encode("after")
    var list = container.nestedUnkeyedContainer(forKey: .nestedList)
    try list.encode(OrderBody(sku: "n", quantity: 1))
    try container.encode([1, 2], forKey: .afterBoth)
  }
}

class EncodedBase: Encodable {
  var baseValue = "base"
  var shared = 1

  enum Keys: String, CodingKey { case baseValue, shared }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Keys.self)
    try container.encode(baseValue, forKey: .baseValue)
    try container.encode(shared, forKey: .shared)
  }
}

/// A subclass writing its superclass under `super`, and again into the same container.
final class Inheriting: EncodedBase, @unchecked Sendable {
  var ownValue = 2.5

  enum OwnKeys: String, CodingKey { case ownValue, superKey, extra }

  override func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: OwnKeys.self)
    try container.encode(ownValue, forKey: .ownValue)
    try super.encode(to: container.superEncoder())
    try super.encode(to: container.superEncoder(forKey: .superKey))
    var again = encoder.container(keyedBy: OwnKeys.self)
    try again.encode(3, forKey: .extra)
  }
}

struct UnkeyedSuperEncoding: Encodable {
  func encode(to encoder: any Encoder) throws {
    var container = encoder.unkeyedContainer()
    try container.encode(1)
    try EncodedBase().encode(to: container.superEncoder())
    _ = container.superEncoder()
    try container.encode(2)
  }
}

struct SuperForKey: Encodable {
  enum Keys: String, CodingKey { case one, two }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Keys.self)
    var single = container.superEncoder(forKey: .one).singleValueContainer()
    try single.encode([1.5])
    _ = container.superEncoder(forKey: .two)
  }
}

struct TwiceKeyed: Encodable {
  enum Keys: String, CodingKey { case a, b, c }

  func encode(to encoder: any Encoder) throws {
    var first = encoder.container(keyedBy: Keys.self)
    try first.encode(1, forKey: .a)
    var second = encoder.container(keyedBy: Keys.self)
    try second.encode(2, forKey: .b)
    try first.encode(3, forKey: .c)
  }
}

struct Wrapper<Inner: Encodable>: Encodable {
  let inner: Inner

  func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(inner)
  }
}

/// A single value that is an object, then more members through a keyed container (Foundation merges them).
struct WrapperThenKeyed: Encodable {
  func encode(to encoder: any Encoder) throws {
    var single = encoder.singleValueContainer()
    try single.encode(["fromDictionary": 1])
    var container = encoder.container(keyedBy: DictionaryKey.self)
    try container.encode(2, forKey: DictionaryKey("fromContainer"))
  }
}

struct EncodesNothing: Encodable {
  func encode(to encoder: any Encoder) throws {}
}

/// Writes the coding paths it sees, which Foundation builds without `nestedContainer` keys.
struct CodingPaths: Encodable {
  enum Keys: String, CodingKey { case outer, inner, paths }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Keys.self)
    var nested = container.nestedContainer(keyedBy: Keys.self, forKey: .outer)
    try nested.encode(ReadsUserInfo(), forKey: .inner)
    var list = nested.nestedUnkeyedContainer(forKey: .paths)
    try list.encode(nested.codingPath.map(\.stringValue))
    try list.encode(list.codingPath.map(\.stringValue))
    try list.encode(container.codingPath.map(\.stringValue))
    try list.encode(encoder.codingPath.map(\.stringValue))
    try list.encode(ReadsUserInfo())
  }
}

/// Writes into a nested container after its parent moved on: a stream cannot go back.
struct ReentersNested: Encodable {
  enum Keys: String, CodingKey { case a, b, c }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Keys.self)
    var nested = container.nestedContainer(keyedBy: Keys.self, forKey: .a)
    try nested.encode(1, forKey: .a)
    try container.encode(2, forKey: .b)
    try nested.encode(3, forKey: .c)
  }
}

struct DuplicateKey: Encodable {
  enum Keys: String, CodingKey { case a, b }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: Keys.self)
    try container.encode(1, forKey: .a)
    try container.encode(2, forKey: .b)
    try container.encode("last", forKey: .a)
  }
}

/// Takes a super encoder, writes on, then uses it: Foundation places its value where it was taken.
struct LateSuper: Encodable {
  func encode(to encoder: any Encoder) throws {
    var container = encoder.unkeyedContainer()
    let late = container.superEncoder()
    try container.encode(1)
    var single = late.singleValueContainer()
    try single.encode("late")
  }
}

private struct SnakeSample: Encodable {
  let firstName: String
}
