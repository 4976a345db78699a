import Foundation
import MalibuJSON
import Testing

/// What one decoder made of a document: a value, or a `DecodingError` reduced to its case and coding path.
enum DecodeOutcome<T: Equatable>: Equatable, CustomStringConvertible {
  case value(T)
  case failure(kind: String, path: [String])

  init(_ body: () throws -> T) {
    do {
      self = .value(try body())
    } catch let error as DecodingError {
      let (kind, context): (String, DecodingError.Context) =
        switch error {
        case .typeMismatch(_, let c): ("typeMismatch", c)
        case .valueNotFound(_, let c): ("valueNotFound", c)
        case .keyNotFound(let key, let c): ("keyNotFound(\(key.stringValue))", c)
        case .dataCorrupted(let c): ("dataCorrupted", c)
        @unknown default: ("unknown", DecodingError.Context(codingPath: [], debugDescription: ""))
        }
      self = .failure(
        kind: kind,
        path: context.codingPath.map { "\($0.stringValue)|\($0.intValue.map(String.init) ?? "-")" }
      )
    } catch {
      self = .failure(kind: "not a DecodingError: \(error)", path: [])
    }
  }

  var description: String {
    switch self {
    case .value(let v): "value(\(String(describing: v).prefix(200)))"
    case .failure(let kind, let path): "\(kind) at \(path)"
    }
  }

  var failed: Bool {
    if case .failure = self { true } else { false }
  }
}

/// Decodes `json` as `T` with Foundation's decoder and ours, configured alike, and returns both outcomes.
func outcomes<T: Decodable & Equatable>(
  _ type: T.Type,
  _ json: [UInt8],
  configure: (inout MalibuJSONDecoder) -> Void = { _ in }
) -> (foundation: DecodeOutcome<T>, malibu: DecodeOutcome<T>) {
  var ours = MalibuJSONDecoder()
  configure(&ours)
  let theirs = JSONDecoder()
  theirs.dateDecodingStrategy = ours.dateDecodingStrategy
  theirs.dataDecodingStrategy = ours.dataDecodingStrategy
  theirs.nonConformingFloatDecodingStrategy = ours.nonConformingFloatDecodingStrategy
  theirs.keyDecodingStrategy = ours.keyDecodingStrategy
  theirs.userInfo = ours.userInfo
  theirs.allowsJSON5 = ours.allowsJSON5
  theirs.assumesTopLevelDictionary = ours.assumesTopLevelDictionary
  let data = Data(json)
  return (DecodeOutcome { try theirs.decode(type, from: data) }, DecodeOutcome { try ours.decode(type, from: json) })
}

/// Expects Foundation's decoder and ours to agree on `json` decoded as `T`: equal values, or the same
/// `DecodingError` case at the same coding path. Returns Foundation's outcome.
@discardableResult
func expectSameOutcome<T: Decodable & Equatable>(
  _ type: T.Type,
  _ json: String,
  configure: (inout MalibuJSONDecoder) -> Void = { _ in },
  sourceLocation: SourceLocation = #_sourceLocation
) -> DecodeOutcome<T> {
  expectSameOutcome(type, Array(json.utf8), configure: configure, sourceLocation: sourceLocation)
}

@discardableResult
func expectSameOutcome<T: Decodable & Equatable>(
  _ type: T.Type,
  _ json: [UInt8],
  configure: (inout MalibuJSONDecoder) -> Void = { _ in },
  sourceLocation: SourceLocation = #_sourceLocation
) -> DecodeOutcome<T> {
  let (foundation, malibu) = outcomes(type, json, configure: configure)
  #expect(
    foundation == malibu,
    "\(String(decoding: json.prefix(120), as: UTF8.self)) as \(T.self)",
    sourceLocation: sourceLocation
  )
  return foundation
}

/// Any JSON document, for comparing what both decoders make of untyped input.
enum JSONValue: Codable, Equatable {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([JSONValue])
  case object([String: JSONValue])

  init(from decoder: any Decoder) throws {
    let single = try decoder.singleValueContainer()
    if single.decodeNil() {
      self = .null
    } else if let value = try? single.decode(Bool.self) {
      self = .bool(value)
    } else if let value = try? single.decode(String.self) {
      self = .string(value)
    } else if let value = try? single.decode([JSONValue].self) {
      self = .array(value)
    } else if let value = try? single.decode([String: JSONValue].self) {
      self = .object(value)
    } else {
      self = .number(try single.decode(Double.self))
    }
  }

  func encode(to encoder: any Encoder) throws {
    var single = encoder.singleValueContainer()
    switch self {
    case .null: try single.encodeNil()
    case .bool(let v): try single.encode(v)
    case .number(let v): try single.encode(v)
    case .string(let v): try single.encode(v)
    case .array(let v): try single.encode(v)
    case .object(let v): try single.encode(v)
    }
  }

  static func == (a: JSONValue, b: JSONValue) -> Bool {
    switch (a, b) {
    case (.null, .null): true
    case (.bool(let x), .bool(let y)): x == y
    // Bit patterns, so -0.0 and 0.0 differ and NaN equals NaN.
    case (.number(let x), .number(let y)): x.bitPattern == y.bitPattern
    case (.string(let x), .string(let y)): x == y
    case (.array(let x), .array(let y)): x == y
    case (.object(let x), .object(let y)): x == y
    default: false
    }
  }
}
