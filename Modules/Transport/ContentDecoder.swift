import Foundation
package import HTTPTypes
import MalibuGzip

/// The gzip-aware decoding every transport shares: it sits between the bytes read from the network and the
/// caller (in a collecting transfer, on the transport's side; in a streamed one, in the reading task, see
/// `DecodingReader`), and inflates `Content-Encoding: gzip`, `x-gzip` and `deflate` bodies as they
/// stream, within the decompression limit.
///
/// `deflate` accepts both the zlib wrapping the standard asks for and the raw deflate some servers send. A coding
/// Malibu does not decode (`br`, `zstd`, several codings) is left as it is, headers included: Malibu never offers
/// those in `Accept-Encoding`.
package final class ContentDecoder {
  /// The most encoded bytes inflated at once when the ratio is checked: the check counts a slice as received before
  /// zlib has consumed it, so a bomb gets at most `maximumRatio` times this much beyond the ratio.
  private static let ratioSlice = 8 << 10

  /// Thrown by the sink when the body decodes to more than the ratio allows.
  private struct RatioExceeded: Error {}

  private let inflater: Inflater
  private let limit: Int?
  private let maximumRatio: Int?
  /// Encoded bytes handed to the inflater so far, and decoded bytes it produced.
  private var encoded = 0
  private var decoded = 0

  /// A decoder for a response with these header fields, or `nil` when the body is to be passed on as it is.
  package init?(headers: HTTPFields, decompression: Decompression) {
    guard decompression.isEnabled, let format = Self.format(of: headers) else { return nil }
    inflater = Inflater(format: format, limit: decompression.limit)
    limit = decompression.limit
    maximumRatio = decompression.maximumRatio
  }

  /// The header fields the caller sees: when the body is decoded, `Content-Encoding` and `Content-Length` (which
  /// describe the encoded body) are removed.
  package static func decodedHeaders(_ headers: HTTPFields, decompression: Decompression) -> HTTPFields {
    guard decompression.isEnabled, format(of: headers) != nil else { return headers }
    var fields = headers
    fields[.contentEncoding] = nil
    fields[.contentLength] = nil
    return fields
  }

  /// The decoder, the body length the caller will receive and the header fields the caller sees, all at once: the
  /// same answers as ``init(headers:decompression:)``, ``expectedLength(_:decompression:)`` and
  /// ``decodedHeaders(_:decompression:)``, from a single pass over the fields when the body is not encoded (nearly
  /// always), where those three look the fields up by name several times.
  package static func plan(
    for headers: HTTPFields,
    decompression: Decompression
  ) -> (decoder: ContentDecoder?, expectedLength: Int?, headers: HTTPFields) {
    var length: Int?
    var lengths = 0
    for field in headers {
      // Canonical names are compared only when the length matches: most fields are neither of the two.
      switch field.name.canonicalName.utf8.count {
      case 14 where field.name == .contentLength:
        lengths += 1
        length = Int(field.value)
      case 16 where field.name == .contentEncoding:
        let decoder = ContentDecoder(headers: headers, decompression: decompression)
        let expected = expectedLength(headers, decompression: decompression)
        return (decoder, expected, decodedHeaders(headers, decompression: decompression))
      default:
        continue
      }
    }
    // Several Content-Length fields are joined with ", " by the subscript, which never parses: no length then.
    return (nil, lengths == 1 ? length : nil, headers)
  }

  /// The body length the caller will receive, when the headers announce it and no decoding changes it.
  package static func expectedLength(_ headers: HTTPFields, decompression: Decompression) -> Int? {
    guard !decompression.isEnabled || format(of: headers) == nil else { return nil }
    // Several Content-Length fields are joined with ", " by the subscript, which never parses: no length then.
    var length: Int?
    var seen = false
    for field in headers where field.name == .contentLength {
      if seen { return nil }
      seen = true
      length = Int(field.value)
    }
    return length
  }

  private static func format(of headers: HTTPFields) -> Inflater.Format? {
    // Most bodies are not encoded: look for the field before splitting anything.
    guard headers.contains(.contentEncoding) else { return nil }
    let codings = headers[values: .contentEncoding]
      .flatMap { $0.split(separator: ",") }
      .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
      .filter { !$0.isEmpty && $0 != "identity" }
    guard codings.count == 1 else { return nil }
    switch codings[0] {
    case "gzip", "x-gzip": return .gzip
    case "deflate": return .automatic
    default: return nil
    }
  }

  /// Decodes received bytes, handing each decoded piece to `sink` (valid only during the call).
  /// - Returns: The most restrictive result `sink` returned (`stop` over `pause` over `proceed`).
  /// - Throws: ``TransportError`` with ``TransportError/Code/decodingFailed`` for a corrupt body, or
  ///   ``TransportError/Code/bodyTooLarge`` past the decompression limit or ratio (see ``Decompression``).
  package func decode(
    _ bytes: UnsafeRawBufferPointer,
    to sink: (UnsafeRawBufferPointer) -> BodyChannel.WriteResult
  ) throws(TransportError) -> BodyChannel.WriteResult {
    var result = BodyChannel.WriteResult.proceed
    var start = 0
    repeat {
      // With a ratio to check, the input goes in small slices, so the encoded count is close to what zlib consumed.
      let end = maximumRatio == nil ? bytes.count : min(bytes.count, start + Self.ratioSlice)
      encoded += end - start
      do {
        try inflater.inflate(UnsafeRawBufferPointer(rebasing: bytes[start..<end])) { output in
          decoded += output.count
          if let maximumRatio, decoded > Decompression.ratioThreshold, decoded / maximumRatio > encoded {
            throw RatioExceeded()
          }
          let written = sink(output)
          if written == .stop || result == .proceed { result = written }
        }
      } catch {
        throw map(error)
      }
      start = end
    } while start < bytes.count
    return result
  }

  /// Checks that the encoded body was complete.
  /// - Throws: ``TransportError`` with ``TransportError/Code/decodingFailed`` for a truncated body.
  package func finish() throws(TransportError) {
    do {
      try inflater.finish()
    } catch {
      throw map(error)
    }
  }

  private func map(_ error: any Error) -> TransportError {
    if error is RatioExceeded {
      return TransportError(
        code: .bodyTooLarge,
        message: "the body decodes to more than \(maximumRatio ?? 0) times its encoded size (\(decoded) bytes from "
          + "\(encoded)): refused as a decompression bomb; to accept it, raise "
          + "`TransferOptions.decompression`'s ratio (`.enabled(limit:maximumRatio:)`, `nil` for no check)"
      )
    }
    if let error = error as? GzipError, error.code == .limitExceeded {
      var tooLarge = TransportError.decodedBodyTooLarge(limit: limit ?? 0)
      tooLarge.underlyingError = error
      return tooLarge
    }
    return TransportError(
      code: .decodingFailed,
      message: "the response body could not be decoded: \((error as? GzipError)?.message ?? "\(error)")",
      underlyingError: error
    )
  }
}

@available(*, unavailable)
extension ContentDecoder: Sendable {}
