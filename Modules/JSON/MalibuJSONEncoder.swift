public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Encodes `Encodable` values as JSON, as Foundation's `JSONEncoder` writes them: byte for byte with `sortedKeys`;
/// without it, the same JSON with each object's keys in the order they were encoded (Foundation's order is a hashed
/// dictionary's, different from run to run).
///
/// A value type: configure one and share it across threads. The options are Foundation's own types, so swapping
/// `JSONEncoder()` for `MalibuJSONEncoder()` keeps every line that sets a strategy; only a `let encoder` becomes
/// `var encoder`, since a value type's options are set on a variable.
///
/// Values are written straight into one growing byte buffer, in the order the `encode(to:)` methods send them. When a
/// value uses the `Encoder` API in a way a stream cannot follow (writing into a container after a sibling was
/// finished, a key written twice in one object), the whole value is encoded again by Foundation's `JSONEncoder` with
/// the same options, so the output is still Foundation's.
public struct MalibuJSONEncoder: Sendable {
  /// The output formatting options: Foundation's `JSONEncoder.OutputFormatting`.
  public typealias OutputFormatting = JSONEncoder.OutputFormatting
  /// How `Date` values are written: Foundation's `JSONEncoder.DateEncodingStrategy`.
  public typealias DateEncodingStrategy = JSONEncoder.DateEncodingStrategy
  /// How `Data` values are written: Foundation's `JSONEncoder.DataEncodingStrategy`.
  public typealias DataEncodingStrategy = JSONEncoder.DataEncodingStrategy
  /// How infinity and NaN are written: Foundation's `JSONEncoder.NonConformingFloatEncodingStrategy`.
  public typealias NonConformingFloatEncodingStrategy = JSONEncoder.NonConformingFloatEncodingStrategy
  /// How keys are changed before they are written: Foundation's `JSONEncoder.KeyEncodingStrategy`.
  public typealias KeyEncodingStrategy = JSONEncoder.KeyEncodingStrategy

  /// The output format: `prettyPrinted`, `sortedKeys`, `withoutEscapingSlashes`. Defaults to `[]`.
  ///
  /// Without `sortedKeys`, an object's keys come in the order they were encoded (Foundation's order is that of a
  /// hashed dictionary, different from run to run); with it, both encoders write the same bytes.
  public var outputFormatting: OutputFormatting = [] {
    didSet { options = EncoderOptions(self) }
  }
  /// The strategy for `Date` values. Defaults to `.deferredToDate`.
  public var dateEncodingStrategy: DateEncodingStrategy = .deferredToDate {
    didSet { options = EncoderOptions(self) }
  }
  /// The strategy for `Data` values. Defaults to `.base64`.
  public var dataEncodingStrategy: DataEncodingStrategy = .base64 {
    didSet { options = EncoderOptions(self) }
  }
  /// The strategy for infinity and NaN. Defaults to `.throw`.
  public var nonConformingFloatEncodingStrategy: NonConformingFloatEncodingStrategy = .throw {
    didSet { options = EncoderOptions(self) }
  }
  /// The strategy for keys. Defaults to `.useDefaultKeys`.
  public var keyEncodingStrategy: KeyEncodingStrategy = .useDefaultKeys {
    didSet { options = EncoderOptions(self) }
  }
  /// Contextual information handed to every `encode(to:)` as `encoder.userInfo`.
  public var userInfo: [CodingUserInfoKey: any Sendable] = [:] {
    didSet { options = EncoderOptions(self) }
  }

  /// The options above, read by each encode without copying them.
  private(set) var options: EncoderOptions

  /// An encoder with Foundation's default options.
  public init() { options = .defaults }

  /// Encodes `value` as a JSON document.
  ///
  /// - Throws: `EncodingError`, with the case and coding path Foundation's encoder reports.
  public func encode<T: Encodable>(_ value: T) throws -> Data {
    switch try encodeOutput(value) {
    case .bytes(let block, let count):
      // A big output block becomes the data's storage; a small one is copied, which costs less than the
      // bookkeeping of a storage with a deallocator.
      guard count <= 1024 else { return Data(bytesNoCopy: block, count: count, deallocator: .free) }
      defer { free(block) }
      return Data(bytes: block, count: count)
    case .foundation(let data):
      return data
    }
  }

  /// Encodes `value` as a JSON document, returned as its UTF-8 bytes.
  ///
  /// - Throws: `EncodingError`, with the case and coding path Foundation's encoder reports.
  public func encodeBytes<T: Encodable>(_ value: T) throws -> [UInt8] {
    try encodeReportingRestart(value).bytes
  }

  /// Encodes `value`, and says whether the stream gave up and Foundation's encoder wrote it.
  func encodeReportingRestart<T: Encodable>(_ value: T) throws -> (bytes: [UInt8], restarted: Bool) {
    switch try encodeOutput(value) {
    case .bytes(let block, let count):
      defer { free(block) }
      return ([UInt8](UnsafeBufferPointer(start: block, count: count)), false)
    case .foundation(let data):
      return ([UInt8](data), true)
    }
  }

  /// What an encode produced: the stream's output block (`malloc`ed, the caller frees it), or Foundation's data.
  enum EncodedOutput {
    case bytes(UnsafeMutablePointer<UInt8>, Int)
    case foundation(Data)
  }

  private func encodeOutput<T: Encodable>(_ value: T) throws -> EncodedOutput {
    let writer = StreamingEncoder(options: options)
    let result: Result<Void, any Error>
    do {
      try writer.encodeTopLevel(value)
      result = .success(())
    } catch {
      result = .failure(error)
    }
    let (failure, tooDeep, empty, (block, count)) = writer.state.finish(options: options)
    if failure == nil, !empty, !tooDeep, case .success = result { return .bytes(block, count) }
    free(block)
    switch failure {
    case nil:
      try result.get()
      if empty {
        throw EncodingError.invalidValue(
          value,
          EncodingError.Context(codingPath: [], debugDescription: "Top-level \(T.self) did not encode any values.")
        )
      }
      throw EncodingError.invalidValue(
        value,
        EncodingError.Context(codingPath: [], debugDescription: "Unable to encode the given top-level value to JSON.")
      )
    case .restart:
      return .foundation(try foundationEncoder().encode(value))
    case .misuse(let message):
      throw EncodingError.invalidValue(value, EncodingError.Context(codingPath: [], debugDescription: message))
    }
  }

  /// Foundation's encoder with these options: the path for values a stream cannot follow.
  func foundationEncoder() -> JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = outputFormatting
    encoder.dateEncodingStrategy = dateEncodingStrategy
    encoder.dataEncodingStrategy = dataEncodingStrategy
    encoder.nonConformingFloatEncodingStrategy = nonConformingFloatEncodingStrategy
    encoder.keyEncodingStrategy = keyEncodingStrategy
    encoder.userInfo = userInfo
    return encoder
  }
}
