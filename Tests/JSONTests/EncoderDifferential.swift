import Foundation
import Testing

@testable import MalibuJSON

/// What an encoder made of a value: its bytes, or its error's case, coding path and description.
enum EncodeOutcome: Equatable, CustomStringConvertible {
  case bytes(String)
  case error(String)

  var description: String {
    switch self {
    case .bytes(let text): text
    case .error(let text): "error: \(text)"
    }
  }

  init(_ body: () throws -> Data) {
    do {
      self = .bytes(String(decoding: try body(), as: UTF8.self))
    } catch let EncodingError.invalidValue(_, context) {
      let path = context.codingPath.map { key in key.intValue.map { "\(key.stringValue)#\($0)" } ?? key.stringValue }
      self = .error("invalidValue \(path) \(context.debugDescription)")
    } catch {
      self = .error("\(type(of: error)) \(error)")
    }
  }
}

/// Encodes `value` with MalibuJSON and with Foundation under the same options and expects the same outcome.
///
/// With `sortedKeys` the bytes must be identical. Without it Foundation's key order is a hashed dictionary's, so the
/// value is also encoded with `sortedKeys` added (identical bytes), and the unsorted documents must hold equal JSON.
func expectSameAsFoundation<T: Encodable>(
  _ value: T,
  _ encoder: MalibuJSONEncoder = MalibuJSONEncoder(),
  _ label: String = "",
  restarts: Bool = false,
  sourceLocation: SourceLocation = #_sourceLocation
) {
  var sorted = encoder
  sorted.outputFormatting.insert(.sortedKeys)
  let ours = EncodeOutcome { try sorted.encode(value) }
  let theirs = EncodeOutcome { try sorted.foundationEncoder().encode(value) }
  #expect(ours == theirs, "\(label) \(T.self)", sourceLocation: sourceLocation)
  if case .bytes = ours {
    let restarted = (try? sorted.encodeReportingRestart(value).restarted) ?? false
    #expect(restarted == restarts, "\(label) \(T.self): restarted", sourceLocation: sourceLocation)
  }
  guard !encoder.outputFormatting.contains(.sortedKeys) else { return }
  let unsortedOurs = EncodeOutcome { try encoder.encode(value) }
  let unsortedTheirs = EncodeOutcome { try encoder.foundationEncoder().encode(value) }
  switch (unsortedOurs, unsortedTheirs) {
  case (.bytes(let a), .bytes(let b)):
    #expect(sameJSON(a, b), "\(label) \(T.self): \(a) vs \(b)", sourceLocation: sourceLocation)
  default:
    #expect(unsortedOurs == unsortedTheirs, "\(label) \(T.self)", sourceLocation: sourceLocation)
  }
}

/// Whether two documents hold the same JSON, whatever the order of their keys.
func sameJSON(_ a: String, _ b: String) -> Bool {
  guard a != b else { return true }
  guard let left = try? JSONSerialization.jsonObject(with: Data(a.utf8), options: .fragmentsAllowed) as? NSObject,
    let right = try? JSONSerialization.jsonObject(with: Data(b.utf8), options: .fragmentsAllowed) as? NSObject
  else { return false }
  return left.isEqual(right)
}

/// A named encoder configuration, for parameterized tests.
struct EncoderConfiguration: Sendable, CustomTestStringConvertible {
  let name: String
  let encoder: MalibuJSONEncoder

  var testDescription: String { name }

  init(_ name: String, _ configure: (inout MalibuJSONEncoder) -> Void) {
    self.name = name
    var encoder = MalibuJSONEncoder()
    configure(&encoder)
    self.encoder = encoder
  }

  /// Every combination of the output formatting options.
  static let formattings: [EncoderConfiguration] = (0..<8).map { bits in
    var formatting: MalibuJSONEncoder.OutputFormatting = []
    if bits & 1 != 0 { formatting.insert(.prettyPrinted) }
    if bits & 2 != 0 { formatting.insert(.sortedKeys) }
    if bits & 4 != 0 { formatting.insert(.withoutEscapingSlashes) }
    return EncoderConfiguration("formatting \(bits)") { $0.outputFormatting = formatting }
  }

  /// Runs `body` with each named strategy set at `option` of an encoder with each of the ``formattings``.
  static func forEachFormatting<Strategy>(
    setting option: WritableKeyPath<MalibuJSONEncoder, Strategy>,
    to strategies: [(String, Strategy)],
    _ body: (MalibuJSONEncoder, String) -> Void
  ) {
    for (name, strategy) in strategies {
      for formatting in formattings {
        var encoder = formatting.encoder
        encoder[keyPath: option] = strategy
        body(encoder, name)
      }
    }
  }
}
