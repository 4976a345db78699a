import Foundation
import MalibuJSON
import Testing

/// MalibuJSON against Foundation on the benchmark's 1,000 `api-mix` payloads (`Tools/Benchmarks/Scripts/bench.py
/// --generate-api DIR` writes them): every file decodes to equal values with both decoders, as the benchmark's
/// `[Item]` and as a generic JSON value, and both encoders write the same bytes for what was decoded.
@Suite struct ApiMixDifferentialTests {
  /// The files are checked in this many shards, so that Swift Testing spreads them over the cores.
  static let shards = 8

  @Test(arguments: 0..<shards) func decodersAndEncodersAgree(shard: Int) throws {
    let files = try Self.payloads.get()
    try #require(files.count == 1000, "expected the 1,000 api-mix files, found \(files.count)")
    for (index, file) in files.enumerated() where index % Self.shards == shard {
      try Self.compare(file.name, file.data, fromBytes: index % 2 == 1)
    }
  }

  /// One file: decode with both, expect equal values; encode the decoded records with both, expect the same bytes.
  /// MalibuJSON reads every other file from `[UInt8]`, the others from `Data`.
  static func compare(_ name: String, _ data: Data, fromBytes: Bool) throws {
    let foundationItems = try JSONDecoder().decode([Item].self, from: data)
    let malibuItems =
      fromBytes
      ? try MalibuJSONDecoder().decode([Item].self, from: [UInt8](data))
      : try MalibuJSONDecoder().decode([Item].self, from: data)
    #expect(malibuItems == foundationItems, "\(name): [Item] differs")

    let foundationValue = try JSONDecoder().decode(JSONValue.self, from: data)
    let malibuValue = try MalibuJSONDecoder().decode(JSONValue.self, from: data)
    #expect(malibuValue == foundationValue, "\(name): the generic JSON value differs")

    let foundationBytes = try JSONEncoder().encode(foundationItems)
    let malibuBytes = try MalibuJSONEncoder().encode(foundationItems)
    if malibuBytes != foundationBytes {
      #expect(
        JSONValue.membersSorted(malibuBytes) == JSONValue.membersSorted(foundationBytes),
        "\(name): the encoders wrote different JSON for the same [Item]"
      )
    }
  }

  @Test func membersSortedKeepsEveryByteButTheOrderOfMembers() {
    let table: [(String, String)] = [
      (#"{"b":1,"a":[{"d":"x","c":null}]}"#, #"{"a":[{"c":null,"d":"x"}],"b":1}"#),
      (#"[1.5e3,"\"}",{"}":{}}]"#, #"[1.5e3,"\"}",{"}":{}}]"#),
      (#"{"a":"\\","a\\":2}"#, #"{"a":"\\","a\\":2}"#),
    ]
    for (input, expected) in table {
      #expect(JSONValue.membersSorted(Data(input.utf8)) == Array(expected.utf8))
    }
    #expect(JSONValue.membersSorted(Data(#"{"a":1.0}"#.utf8)) != JSONValue.membersSorted(Data(#"{"a":1}"#.utf8)))
  }

  // MARK: - The payloads

  /// The 1,000 files, written once per test process by the benchmark's own generator into a temporary directory.
  static let payloads: Result<[(name: String, data: Data)], any Error> = Result {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let script = root.appendingPathComponent("Tools/Benchmarks/Scripts/bench.py").path
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("malibu-apimix-\(ProcessInfo.processInfo.processIdentifier)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", script, "--generate-api", directory.path]
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw GenerationFailure(
        process.terminationStatus == 127
          ? "python3 is missing: install it (`apt-get install -y python3`), then run the tests again"
          : "`python3 \(script) --generate-api \(directory.path)` failed (exit \(process.terminationStatus))"
      )
    }
    let items = directory.appendingPathComponent("items")
    return try FileManager.default.contentsOfDirectory(atPath: items.path).sorted().map { name in
      (name, try Data(contentsOf: items.appendingPathComponent(name)))
    }
  }

  struct GenerationFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
      self.description = description
    }
  }

  // MARK: - The models

  /// One record of an `api-mix` file: the benchmark's `Item` (Tools/Benchmarks/Sources/BenchSupport/ApiMix.swift).
  struct Item: Codable, Equatable {
    struct Location: Codable, Equatable {
      var lat: Double
      var lon: Double
    }

    var id: Int
    var uuid: String
    var name: String
    var score: Double
    var active: Bool
    var tags: [String]
    var location: Location
    var note: String?
  }

  /// Any JSON document as a `Codable` value: objects and arrays through their containers, then the scalars.
  /// Doubles compare by bit pattern, so that `-0.0` and `0.0` differ.
  indirect enum JSONValue: Codable, Equatable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    struct Key: CodingKey {
      var stringValue: String
      var intValue: Int? { nil }

      init(stringValue: String) {
        self.stringValue = stringValue
      }

      init?(intValue: Int) {
        nil
      }
    }

    // Scalars first, the most common first: each failed attempt costs a thrown error.
    init(from decoder: any Decoder) throws {
      let single = try decoder.singleValueContainer()
      if single.decodeNil() {
        self = .null
      } else if let string = try? single.decode(String.self) {
        self = .string(string)
      } else if let int = try? single.decode(Int.self) {
        self = .int(int)
      } else if let double = try? single.decode(Double.self) {
        self = .double(double)
      } else if let bool = try? single.decode(Bool.self) {
        self = .bool(bool)
      } else if let object = try? decoder.container(keyedBy: Key.self) {
        var members: [String: JSONValue] = [:]
        // In key order: `allKeys` comes in a dictionary's order, and the first member that fails is the error.
        for key in object.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
          members[key.stringValue] = try object.decode(JSONValue.self, forKey: key)
        }
        self = .object(members)
      } else {
        var array = try decoder.unkeyedContainer()
        var elements: [JSONValue] = []
        while !array.isAtEnd {
          elements.append(try array.decode(JSONValue.self))
        }
        self = .array(elements)
      }
    }

    func encode(to encoder: any Encoder) throws {
      switch self {
      case .object(let members):
        var container = encoder.container(keyedBy: Key.self)
        for (key, value) in members {
          try container.encode(value, forKey: Key(stringValue: key))
        }
      case .array(let elements):
        var container = encoder.unkeyedContainer()
        for element in elements {
          try container.encode(element)
        }
      case .null:
        var container = encoder.singleValueContainer()
        try container.encodeNil()
      case .bool(let bool):
        var container = encoder.singleValueContainer()
        try container.encode(bool)
      case .int(let int):
        var container = encoder.singleValueContainer()
        try container.encode(int)
      case .double(let double):
        var container = encoder.singleValueContainer()
        try container.encode(double)
      case .string(let string):
        var container = encoder.singleValueContainer()
        try container.encode(string)
      }
    }

    static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
      switch (lhs, rhs) {
      case (.null, .null): true
      case (.bool(let a), .bool(let b)): a == b
      case (.int(let a), .int(let b)): a == b
      case (.double(let a), .double(let b)): a.bitPattern == b.bitPattern
      case (.string(let a), .string(let b)): a == b
      case (.array(let a), .array(let b)): a == b
      case (.object(let a), .object(let b)): a == b
      default: false
      }
    }

    /// The compact JSON `data` with the members of every object sorted by their bytes, every other byte as written.
    ///
    /// Foundation's encoder writes an object's members in the order of a `Dictionary` it builds, which changes from
    /// one call to the next even for the same value (per-instance hash seeds), so two writers can only be compared
    /// byte for byte up to that order.
    static func membersSorted(_ data: Data) -> [UInt8] {
      let bytes = [UInt8](data)
      var index = 0
      var result = sortedValue(bytes, &index)
      result += bytes[index...]
      return result
    }

    private static func sortedValue(_ bytes: [UInt8], _ index: inout Int) -> [UInt8] {
      guard index < bytes.count else { return [] }
      let open = bytes[index]
      switch open {
      case UInt8(ascii: "{"), UInt8(ascii: "["):
        let close = open == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
        index += 1
        var parts: [[UInt8]] = []
        while index < bytes.count, bytes[index] != close {
          if bytes[index] == UInt8(ascii: ",") { index += 1 }
          var part: [UInt8] = []
          if open == UInt8(ascii: "{") {
            let end = stringEnd(bytes, index)
            part = Array(bytes[index..<end]) + [UInt8(ascii: ":")]
            index = min(end + 1, bytes.count)  // past the colon
          }
          parts.append(part + sortedValue(bytes, &index))
        }
        index = min(index + 1, bytes.count)
        if open == UInt8(ascii: "{") { parts.sort { $0.lexicographicallyPrecedes($1) } }
        var result = [open]
        for (offset, part) in parts.enumerated() {
          if offset > 0 { result.append(UInt8(ascii: ",")) }
          result += part
        }
        return result + [close]
      case UInt8(ascii: "\""):
        let end = stringEnd(bytes, index)
        defer { index = end }
        return Array(bytes[index..<end])
      default:
        let start = index
        scan: while index < bytes.count {
          switch bytes[index] {
          case UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"): break scan
          default: index += 1
          }
        }
        return Array(bytes[start..<index])
      }
    }

    /// The end of the string literal that starts at `start`: past its closing quote.
    private static func stringEnd(_ bytes: [UInt8], _ start: Int) -> Int {
      var index = start + 1
      while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
        index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
      }
      return min(index + 1, bytes.count)
    }
  }
}
