public import Foundation

/// Decodes `Decodable` values from JSON, as Foundation's `JSONDecoder` does, in one pass over the UTF-8 bytes.
///
/// A value type: configure one and share it across threads. The options are Foundation's own strategy types, so
/// swapping `JSONDecoder()` for `MalibuJSONDecoder()` keeps every `decoder.dateDecodingStrategy = .iso8601` line.
public struct MalibuJSONDecoder: Sendable {
  /// How dates are decoded; Foundation's `JSONDecoder.DateDecodingStrategy`, default `.deferredToDate`.
  public var dateDecodingStrategy: JSONDecoder.DateDecodingStrategy = .deferredToDate
  /// How `Data` is decoded; Foundation's `JSONDecoder.DataDecodingStrategy`, default `.base64`.
  public var dataDecodingStrategy: JSONDecoder.DataDecodingStrategy = .base64
  /// How strings stand for non-conforming floats; default `.throw`.
  public var nonConformingFloatDecodingStrategy: JSONDecoder.NonConformingFloatDecodingStrategy = .throw
  /// How object keys map to coding keys; default `.useDefaultKeys`.
  public var keyDecodingStrategy: JSONDecoder.KeyDecodingStrategy = .useDefaultKeys
  /// Values handed to every `Decoder`'s `userInfo`.
  public var userInfo: [CodingUserInfoKey: any Sendable] = [:]
  /// Whether JSON5 is accepted. When set, decoding is done by Foundation's `JSONDecoder` (the fallback).
  public var allowsJSON5 = false
  /// Whether a top-level object may omit its braces. When set, decoding is done by Foundation's `JSONDecoder`
  /// (the fallback).
  public var assumesTopLevelDictionary = false

  /// A decoder with Foundation's default options.
  public init() {}

  /// Decodes a value of `type` from the JSON document in `data`.
  ///
  /// - Throws: `DecodingError`, with the case and coding path Foundation's decoder reports.
  public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
    try data.withUnsafeBytes { try decode(type, from: $0) }
  }

  /// Decodes a value of `type` from the JSON document in `bytes`.
  ///
  /// - Throws: `DecodingError`, with the case and coding path Foundation's decoder reports.
  public func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
    try bytes.withUnsafeBytes { try decode(type, from: $0) }
  }

  /// Decodes a value of `type` from the JSON document in any contiguous bytes (a `ByteBuffer`'s readable view, a
  /// `Data` slice, a memory-mapped file), without converting it to `Data` first.
  ///
  /// Like the other overloads, the decoder copies the bytes once into a buffer of its own (so a `Decoder` that escapes
  /// `init(from:)` stays valid); the bytes need to live only for the call. Input that falls back to Foundation's
  /// decoder (see the module's article) is copied into `Data`.
  ///
  /// - Throws: `DecodingError`, with the case and coding path Foundation's decoder reports.
  public func decode<T: Decodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer) throws -> T {
    var start = 0
    switch utf8Encoding(bytes) {
    case .utf8: break
    case .utf8WithBOM: start = 3
    case .other: return try foundationDecode(type, Data(bytes))
    }
    let count = bytes.count - start
    if allowsJSON5 || assumesTopLevelDictionary || count >= tapeMaximumBytes {
      return try foundationDecode(type, Data(bytes))
    }
    // The document keeps its own zero-padded copy, so decoders that escape `init(from:)` stay valid.
    let copy = UnsafeMutablePointer<UInt8>.allocate(capacity: count + 8)
    if count > 0, let base = bytes.baseAddress {
      copy.initialize(from: base.assumingMemoryBound(to: UInt8.self) + start, count: count)
    }
    (copy + count).initialize(repeating: 0, count: 8)
    let tape: Tape
    do {
      tape = try scanTape(copy, count: count)
    } catch {
      copy.deallocate()
      throw DecodingError.dataCorrupted(
        .init(
          codingPath: [],
          debugDescription: "The given data was not valid JSON. \(error.message) at byte \(error.offset)."
        )
      )
    }
    let document = JSONDocument(bytes: copy, byteCount: count, tape: tape, options: options)
    do {
      return try document.unwrap(0, as: type, depth: 0, nil, nil)
    } catch let error as JSONValueError {
      throw DecodingError.dataCorrupted(
        .init(codingPath: [], debugDescription: "The given data was not valid JSON. \(error.message)")
      )
    }
  }

  private var options: JSONDecodingOptions {
    var defaultKeys = false
    if case .useDefaultKeys = keyDecodingStrategy { defaultKeys = true }
    return JSONDecodingOptions(
      dateDecodingStrategy: dateDecodingStrategy,
      dataDecodingStrategy: dataDecodingStrategy,
      nonConformingFloatDecodingStrategy: nonConformingFloatDecodingStrategy,
      keyDecodingStrategy: keyDecodingStrategy,
      userInfo: userInfo,
      defaultKeys: defaultKeys
    )
  }

  /// Foundation's decoder with the same options: for JSON5, top-level dictionaries without braces, UTF-16 and
  /// UTF-32 input, and documents of 256 MiB or more.
  private func foundationDecode<T: Decodable>(_ type: T.Type, _ data: Data) throws -> T {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = dateDecodingStrategy
    decoder.dataDecodingStrategy = dataDecodingStrategy
    decoder.nonConformingFloatDecodingStrategy = nonConformingFloatDecodingStrategy
    decoder.keyDecodingStrategy = keyDecodingStrategy
    decoder.userInfo = userInfo
    decoder.allowsJSON5 = allowsJSON5
    decoder.assumesTopLevelDictionary = assumesTopLevelDictionary
    return try decoder.decode(type, from: data)
  }

  private enum Encoding { case utf8, utf8WithBOM, other }

  /// Foundation's encoding detection (RFC 4627 section 3, and byte order marks).
  private func utf8Encoding(_ bytes: UnsafeRawBufferPointer) -> Encoding {
    let n = bytes.count
    let b0: UInt8? = n > 0 ? bytes[0] : nil
    let b1: UInt8? = n > 1 ? bytes[1] : nil
    let b2: UInt8? = n > 2 ? bytes[2] : nil
    let b3: UInt8? = n > 3 ? bytes[3] : nil
    switch (b0, b1, b2, b3) {
    case (0, 0, 0xFE, 0xFF), (0xFE, 0xFF, 0, 0), (0xFE, 0xFF, _, _), (0xFF, 0xFE, _, _): return .other
    case (0xEF, 0xBB, 0xBF, _): return .utf8WithBOM
    case (0, 0, 0, .some(let x)) where x != 0: return .other
    case (0, .some(let x), 0, .some(let y)) where x != 0 && y != 0: return .other
    case (.some(let x), 0, 0, 0) where x != 0: return .other
    case (.some(let x), 0, .some(let y), 0) where x != 0 && y != 0: return .other
    case (0, .some(let x), nil, nil) where x != 0: return .other
    case (.some(let x), 0, nil, nil) where x != 0: return .other
    default: return .utf8
    }
  }
}
