import Foundation

// Shared by MalibuJSON's differential tests and the `json-codable` fuzz target: Tools/Fuzz/Sources/MalibuFuzz holds a
// symbolic link to this file, so both compile the same source. Foundation only: no Testing, no MalibuJSON.

/// What MalibuJSON's differential checks compare Foundation's coders with: the benchmark's record, any JSON value, and
/// JSON text up to the order of object members.
enum JSONDifferential {
  /// One record of the benchmark's api-mix files (Tools/Benchmarks/Sources/BenchSupport/ApiMix.swift).
  struct Item: Codable, Equatable, Sendable {
    struct Location: Codable, Equatable, Sendable {
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
  ///
  /// A value deeper than ``walkedDepth`` is taken without looking inside (``truncated``, encoded as `null`): every
  /// failed attempt below throws an error that carries the whole coding path, so walking a 500-deep document costs
  /// Foundation seconds. The decoders still parse and validate all of it, depth limit included.
  indirect enum Value: Codable, Equatable {
    static let walkedDepth = 48

    case truncated
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([Value])
    case object([String: Value])

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
      if decoder.codingPath.count >= Self.walkedDepth {
        self = .truncated
        return
      }
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
        var members: [String: Value] = [:]
        // In key order: `allKeys` comes in a dictionary's order, and the first member that fails is the error.
        for key in object.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) {
          members[key.stringValue] = try object.decode(Value.self, forKey: key)
        }
        self = .object(members)
      } else {
        var array = try decoder.unkeyedContainer()
        var elements: [Value] = []
        while !array.isAtEnd {
          elements.append(try array.decode(Value.self))
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
      case .null, .truncated:
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

    static func == (lhs: Value, rhs: Value) -> Bool {
      switch (lhs, rhs) {
      case (.null, .null), (.truncated, .truncated): true
      case (.bool(let a), .bool(let b)): a == b
      case (.int(let a), .int(let b)): a == b
      case (.double(let a), .double(let b)): a.bitPattern == b.bitPattern
      case (.string(let a), .string(let b)): a == b
      case (.array(let a), .array(let b)): a == b
      case (.object(let a), .object(let b)): a == b
      default: false
      }
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
