import Foundation
import MalibuJSON

/// MalibuJSON against Foundation: the input decoded by both (from `Data`, and from `[UInt8]` by MalibuJSON) as a
/// generic JSON value, as the benchmark's `[Item]` and as a struct of many optional types must give equal values, or
/// fail with the same `DecodingError` case, coding path and key or type; what decoded, encoded by both encoders, must
/// give the same bytes (up to the order of object members) or the same `EncodingError`.
///
/// The generic value, the record and ``JSONDifferential/membersSorted(_:)`` are MalibuJSON's test target's own
/// (`JSONDifferential.swift` here is a symbolic link to `Tests/JSONTests/JSONDifferential.swift`).
enum JSONCodableTarget {
  typealias Value = JSONDifferential.Value
  typealias Item = JSONDifferential.Item

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
        JSONDifferential.membersSorted(found) == JSONDifferential.membersSorted(expected),
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

  // MARK: - The models

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
}
