import Foundation
import MalibuCore
import Testing

@Suite("ParameterValue normalisation")
struct ParameterValueTests {
  struct Board: Encodable, Sendable {
    let id: Int
    let title: String
    let created: Date
    let tags: [String]
  }

  final class NotEncodable: Sendable {}

  struct BigCounter: Encodable, Sendable {
    let count: UInt64
  }

  static let supported: [(name: String, value: any Sendable, expected: ParameterValue)] = [
    ("Bool", true, .bool(true)),
    ("Int", 42, .int(42)),
    ("Int8", Int8(-3), .int(-3)),
    ("UInt16", UInt16(7), .int(7)),
    ("UInt64 in range", UInt64(9), .int(9)),
    ("Double", 1.5, .double(1.5)),
    ("Float", Float(0.5), .double(0.5)),
    ("Decimal", Decimal(string: "2.25")!, .double(2.25)),
    ("String", "surf", .string("surf")),
    ("Substring", "surfing".prefix(4), .string("surf")),
    ("Character", Character("é"), .string("é")),
    ("URL", URL(string: "http://127.0.0.1/a?b=c")!, .string("http://127.0.0.1/a?b=c")),
    (
      "UUID", UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!, .string("E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
    ),
    ("Date", Date(timeIntervalSince1970: 1_800_000_000), .string("2027-01-15T08:00:00Z")),
    ("Date with fraction", Date(timeIntervalSince1970: 1_800_000_000.25), .string("2027-01-15T08:00:00.250Z")),
    ("Data", Data("hi".utf8), .string("aGk=")),
    ("nil", Int?.none, .null),
    ("Optional some", Int?.some(3), .int(3)),
    ("NSNull", NSNull(), .null),
    ("JSONNull", JSONNull(), .null),
    ("NSNumber bool", NSNumber(value: true), .bool(true)),
    ("NSNumber int", NSNumber(value: 12), .int(12)),
    ("NSNumber double", NSNumber(value: 0.25), .double(0.25)),
    ("array", [1, 2, 3], .array([.int(1), .int(2), .int(3)])),
    ("mixed array", [1, "a", true] as [any Sendable], .array([.int(1), .string("a"), .bool(true)])),
    ("dictionary", ["a": ["b": 1]], .object(["a": .object(["b": .int(1)])])),
    ("ParameterValue", ParameterValue.string("x"), .string("x")),
    (
      "Encodable",
      Board(id: 1, title: "Balsa", created: Date(timeIntervalSince1970: 0), tags: ["fish"]),
      .object([
        "id": .int(1), "title": .string("Balsa"), "created": .string("1970-01-01T00:00:00Z"),
        "tags": .array([.string("fish")]),
      ])
    ),
    (
      "array of Encodable", [Board(id: 2, title: "b", created: Date(timeIntervalSince1970: 0), tags: [])],
      .array([
        .object(["id": .int(2), "title": .string("b"), "created": .string("1970-01-01T00:00:00Z"), "tags": .array([])])
      ])
    ),
  ]

  @Test(arguments: supported)
  func supportedValues(_ name: String, _ value: any Sendable, _ expected: ParameterValue) throws {
    #expect(try ParameterValue(normalizing: value) == expected, "\(name)")
  }

  static let unsupported: [(name: String, parameters: Parameters, path: String)] = [
    ("Set", ["ids": Set([1, 2])], "'ids'"),
    ("non-String keys", ["map": [1: "a"]], "'map'"),
    ("class", ["object": NotEncodable()], "'object'"),
    ("UInt64 too large", ["big": UInt64.max], "'big'"),
    ("NaN", ["n": Double.nan], "'n'"),
    ("infinity nested", ["a": ["b": [1.0, Double.infinity]]], "'a[b][1]'"),
    ("class nested in array", ["list": [1, NotEncodable()] as [any Sendable]], "'list[1]'"),
    ("UInt64 too large inside an Encodable", ["big": BigCounter(count: UInt64.max)], "'big'"),
  ]

  @Test(arguments: unsupported)
  func unsupportedValuesNameTheirPath(_ name: String, _ parameters: Parameters, _ path: String) {
    #expect(name.isEmpty == false)
    #expect {
      try ParameterValue.normalize(parameters)
    } throws: { error in
      guard let error = error as? NetworkError else { return false }
      return error.code == .unsupportedParameter && error.message.contains(path)
    }
  }

  @Test func sendableValueRoundTrip() throws {
    let value = try ParameterValue(
      normalizing: ["a": [1, 2.5, "s", true] as [any Sendable], "n": Int?.none] as Parameters
    )
    let plain = try #require(value.sendableValue as? [String: (any Sendable)?])
    let array = try #require(plain["a"] as? [(any Sendable)?])
    #expect(array[0] as? Int == 1)
    #expect(array[1] as? Double == 2.5)
    #expect(array[2] as? String == "s")
    #expect(array[3] as? Bool == true)
    #expect(plain["n"]! == nil)
  }

  @Test func codableRoundTrip() throws {
    let value = ParameterValue.object(["a": .array([.int(1), .double(1.5), .null, .bool(false), .string("x")])])
    let data = try JSONEncoder().encode(value)
    #expect(try JSONDecoder().decode(ParameterValue.self, from: data) == value)
  }
}
