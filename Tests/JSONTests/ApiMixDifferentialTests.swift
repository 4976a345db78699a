import Foundation
import MalibuJSON
import Testing

/// MalibuJSON against Foundation on the benchmark's 1,000 `api-mix` payloads (`Tools/Benchmarks/Scripts/bench.py
/// --generate-api DIR` writes them): every file decodes to equal values with both decoders as the benchmark's
/// `[Item]`, every fourth also as a generic JSON value, and both encoders write the same bytes for what was decoded.
@Suite struct ApiMixDifferentialTests {
  /// The files are checked in this many shards, so that Swift Testing spreads them over the cores.
  static let shards = 8

  /// Every this many files are also decoded as a generic ``JSONValue``. A `Codable` value of unknown shape is found
  /// by trying each kind in turn, a thrown error per miss, and Swift Testing takes a backtrace of every error thrown:
  /// all 1,000 files cost half a minute of CPU. The fuzz target `json-codable` walks generic values at length.
  static let genericValueStride = 4

  @Test(arguments: 0..<shards) func decodersAndEncodersAgree(shard: Int) throws {
    let files = try Self.payloads.get()
    try #require(files.count == 1000, "expected the 1,000 api-mix files, found \(files.count)")
    for (index, file) in files.enumerated() where index % Self.shards == shard {
      try Self.compare(file.name, file.data, fromBytes: index % 2 == 1, generic: index % Self.genericValueStride == 0)
    }
  }

  /// One file: decode with both, expect equal values; encode the decoded records with both, expect the same bytes.
  /// MalibuJSON reads the file from `[UInt8]` or `Data`; with `generic`, both decode it as a ``JSONValue`` too.
  static func compare(_ name: String, _ data: Data, fromBytes: Bool, generic: Bool) throws {
    let foundationItems = try JSONDecoder().decode([Item].self, from: data)
    let malibuItems =
      fromBytes
      ? try MalibuJSONDecoder().decode([Item].self, from: [UInt8](data))
      : try MalibuJSONDecoder().decode([Item].self, from: data)
    // Compared first, then expected: `#expect` on the comparison itself would keep both arrays for its message.
    let sameItems = malibuItems == foundationItems
    #expect(sameItems, "\(name): [Item] differs")

    if generic {
      let foundationValue = try JSONDecoder().decode(JSONValue.self, from: data)
      let malibuValue = try MalibuJSONDecoder().decode(JSONValue.self, from: data)
      let sameValue = malibuValue == foundationValue
      #expect(sameValue, "\(name): the generic JSON value differs")
    }

    let foundationBytes = try JSONEncoder().encode(foundationItems)
    let malibuBytes = try MalibuJSONEncoder().encode(foundationItems)
    if malibuBytes != foundationBytes {
      let sameJSON = JSONValue.membersSorted(malibuBytes) == JSONValue.membersSorted(foundationBytes)
      #expect(sameJSON, "\(name): the encoders wrote different JSON for the same [Item]")
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

    // Scalars first, the most common first: each failed attempt throws an error, and Swift Testing takes a
    // backtrace of every error thrown.
    init(from decoder: any Decoder) throws {
      let single = try decoder.singleValueContainer()
      if single.decodeNil() {
        self = .null
      } else if let string = try? single.decode(String.self) {
        self = .string(string)
      } else if let double = try? single.decode(Double.self) {
        // An integral number is read again as `Int`, which keeps integers past 2^53 exact.
        if double.rounded() == double, let int = try? single.decode(Int.self) {
          self = .int(int)
        } else {
          self = .double(double)
        }
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
      var result: [UInt8] = []
      result.reserveCapacity(bytes.count)
      appendSorted(bytes, &index, to: &result)
      result += bytes[index...]
      return result
    }

    /// Appends the value at `index` to `result`, its objects' members sorted, and moves `index` past it.
    private static func appendSorted(_ bytes: [UInt8], _ index: inout Int, to result: inout [UInt8]) {
      guard index < bytes.count else { return }
      switch bytes[index] {
      case UInt8(ascii: "["):
        result.append(UInt8(ascii: "["))
        index += 1
        while index < bytes.count, bytes[index] != UInt8(ascii: "]") {
          if bytes[index] == UInt8(ascii: ",") {
            result.append(UInt8(ascii: ","))
            index += 1
          }
          appendSorted(bytes, &index, to: &result)
        }
        result.append(UInt8(ascii: "]"))
        index = min(index + 1, bytes.count)
      case UInt8(ascii: "{"):
        index += 1
        var members: [[UInt8]] = []
        while index < bytes.count, bytes[index] != UInt8(ascii: "}") {
          if bytes[index] == UInt8(ascii: ",") { index += 1 }
          let end = stringEnd(bytes, index)
          var member = Array(bytes[index..<end])
          member.append(UInt8(ascii: ":"))
          index = min(end + 1, bytes.count)  // past the colon
          appendSorted(bytes, &index, to: &member)
          members.append(member)
        }
        index = min(index + 1, bytes.count)
        members.sort { $0.lexicographicallyPrecedes($1) }
        result.append(UInt8(ascii: "{"))
        for (offset, member) in members.enumerated() {
          if offset > 0 { result.append(UInt8(ascii: ",")) }
          result += member
        }
        result.append(UInt8(ascii: "}"))
      case UInt8(ascii: "\""):
        let end = stringEnd(bytes, index)
        result += bytes[index..<end]
        index = end
      default:
        let start = index
        scan: while index < bytes.count {
          switch bytes[index] {
          case UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"): break scan
          default: index += 1
          }
        }
        result += bytes[start..<index]
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
