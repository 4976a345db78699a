import Foundation
import MalibuJSON

/// MalibuJSON against Foundation: the input decoded by both (from `Data`, and from `[UInt8]` by MalibuJSON) as a
/// generic JSON value, as the benchmark's `[Item]` and as a struct of many optional types must give equal values, or
/// fail with the same `DecodingError` case, coding path and key or type; what decoded, encoded by both encoders, must
/// give the same bytes (up to the order of object members, see ``membersSorted(_:)``) or the same `EncodingError`.
enum JSONCodableTarget {
  static func run(_ bytes: UnsafeRawBufferPointer) {
    let data = Data(bytes)
    compare(Value.self, data)
    compare([Item].self, data)
    compare(Mixed.self, data)
  }

  static func compare<T: Codable & Equatable>(_ type: T.Type, _ data: Data) {
    let foundation = Result { try JSONDecoder().decode(T.self, from: data) }
    for (source, malibu) in [
      ("Data", Result { try MalibuJSONDecoder().decode(T.self, from: data) }),
      ("[UInt8]", Result { try MalibuJSONDecoder().decode(T.self, from: [UInt8](data)) }),
    ] {
      switch (foundation, malibu) {
      case (.success(let expected), .success(let found)):
        precondition(found == expected, "\(T.self) from \(source): MalibuJSON decoded \(found), Foundation \(expected)")
      case (.failure(let expected), .failure(let found)):
        let (a, b) = (describe(decoding: expected), describe(decoding: found))
        precondition(
          a == b || orderOfMembers(a, b),
          "\(T.self) from \(source): MalibuJSON failed with \(b), Foundation with \(a)"
        )
      case (.success(let expected), .failure(let found)):
        fatalError("\(T.self) from \(source): MalibuJSON failed (\(found)) where Foundation decoded \(expected)")
      case (.failure(let expected), .success(let found)):
        fatalError("\(T.self) from \(source): MalibuJSON decoded \(found) where Foundation failed (\(expected))")
      }
    }
    guard case .success(let value) = foundation else { return }
    let written = Result { try JSONEncoder().encode(value) }
    let malibuWritten = Result { try MalibuJSONEncoder().encode(value) }
    switch (written, malibuWritten) {
    case (.success(let expected), .success(let found)):
      precondition(
        membersSorted(found) == membersSorted(expected),
        "\(T.self): MalibuJSON wrote \(String(decoding: found, as: UTF8.self)), "
          + "Foundation \(String(decoding: expected, as: UTF8.self))"
      )
    case (.failure(let expected), .failure(let found)):
      let (a, b) = (describe(encoding: expected), describe(encoding: found))
      precondition(a == b, "\(T.self): MalibuJSON failed to encode with \(b), Foundation with \(a)")
    default:
      fatalError("\(T.self): one encoder failed, the other did not: \(written) / \(malibuWritten)")
    }
  }

  /// A `DecodingError`'s case, coding path and key or type: what both decoders must agree on (not the message).
  ///
  /// `Dictionary` decodes its members in the order of `allKeys`, which Foundation does not fix from one call to the
  /// next: of an error inside `Mixed`'s dictionaries only the dictionary's own path is compared.
  static func describe(decoding error: any Error) -> String {
    guard let error = error as? DecodingError else { return "not a DecodingError: \(error)" }
    let codingPath: [any CodingKey]
    switch error {
    case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
      codingPath = context.codingPath
    case .keyNotFound(_, let context): codingPath = context.codingPath
    @unknown default: codingPath = []
    }
    if let map = codingPath.firstIndex(where: { ["map", "intMap"].contains($0.stringValue) }),
      map + 1 < codingPath.count
    {
      return "an error inside \(path(Array(codingPath[...map])))"
    }
    switch error {
    case .typeMismatch(let type, let context): return "typeMismatch(\(type)) at \(path(context.codingPath))"
    case .valueNotFound(let type, let context): return "valueNotFound(\(type)) at \(path(context.codingPath))"
    case .keyNotFound(let key, let context):
      return "keyNotFound(\(key.stringValue)) at \(path(context.codingPath))"
    case .dataCorrupted(let context): return "dataCorrupted at \(path(context.codingPath))"
    @unknown default: return "unknown DecodingError \(error)"
    }
  }

  /// Whether two failures may both come from one dictionary of `Mixed` whose members hold different errors: a bad
  /// value's `dataCorrupted` (invalid UTF-8, a bad number) names no path, so which error comes first depends on the
  /// order of `allKeys`, Foundation's changing from one process to the next, MalibuJSON's the document's.
  static func orderOfMembers(_ a: String, _ b: String) -> Bool {
    let inside = a.hasPrefix("an error inside ") || b.hasPrefix("an error inside ")
    return inside && (a == "dataCorrupted at /" || b == "dataCorrupted at /")
  }

  static func describe(encoding error: any Error) -> String {
    guard let error = error as? EncodingError else { return "not an EncodingError: \(error)" }
    switch error {
    case .invalidValue(_, let context): return "invalidValue at \(path(context.codingPath))"
    @unknown default: return "unknown EncodingError \(error)"
    }
  }

  static func path(_ codingPath: [any CodingKey]) -> String {
    "/" + codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: "/")
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

  // MARK: - The models

  /// One record of the benchmark's api-mix files (Tools/Benchmarks/Sources/BenchSupport/ApiMix.swift).
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

  /// Many of the types Foundation's coders treat specially, every one optional so that partial documents decode.
  struct Mixed: Codable, Equatable {
    var int: Int?
    var int8: Int8?
    var uint64: UInt64?
    var float: Float?
    var double: Double?
    var decimal: Decimal?
    var url: URL?
    var date: Date?
    var data: Data?
    var string: String?
    var bools: [Bool]?
    var map: [String: Int]?
    var intMap: [Int: String]?
    var nested: [Mixed?]?
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
}
