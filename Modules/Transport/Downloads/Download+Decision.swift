import Foundation
import HTTPTypes

extension Download {
  /// What to do with a response, decided from its head alone (no I/O), given the offset a resumed request asked to
  /// continue from (`0` when it asked for no range).
  enum Decision: Equatable, Sendable {
    /// Write the body as the whole file, from its first byte.
    case writeWhole
    /// Append the body to the partial file, which must grow by exactly `expectedLength` bytes.
    case append(expectedLength: Int64)
    /// The partial file already holds the whole resource: move it into place without reading the body.
    case complete
    /// Throw the partial file away and send the request again without a range.
    case restart
    /// Fail with `code`; with `discardPartial`, the partial file cannot be continued and is removed.
    case fail(DownloadError.Code, String, discardPartial: Bool)
  }

  /// Decides what to do with `head`, the answer to a request for the bytes from `offset` on (`0`: the whole
  /// resource), sent with `If-Range: validator` for a partial file of the resource whose whole length was `length`
  /// (when known).
  ///
  /// - A `206` continues the partial file only when its `Content-Range` starts exactly at `offset` and its body is
  ///   not content-coded (a range of a gzip representation is not a range of the file); anything else is
  ///   ``DownloadError/Code/rangeMismatch``, never written.
  /// - Such a `206` must also be of the version the partial file holds (RFC 9110, 13.1.5 and 15.3.7.3): its strong
  ///   `ETag` equal to the one sent in `If-Range` (or, when a date was sent, its `Last-Modified` equal to it), and the
  ///   complete length of its `Content-Range` equal to the recorded one when both are known. A server or cache that
  ///   ignores `If-Range` answers a changed resource with a `206` of the new version: splicing it onto the old bytes
  ///   would make a file that never existed, so the partial file is thrown away and the download restarts.
  /// - Another 2xx (a `200` when the validator in `If-Range` no longer matches, or the server ignores ranges) is the
  ///   whole resource: the file starts again from its first byte.
  /// - A `416` to a ranged request means the range starts at or past the end: the partial file is complete when the
  ///   `Content-Range` length (`bytes */length`) equals `offset`; otherwise the download starts again.
  static func decide(_ head: HTTPResponse, offset: Int64, validator: String?, length: Int64?) -> Decision {
    let ranged = offset > 0
    switch head.status.code {
    case 206:
      guard ranged else {
        return .fail(
          .rangeMismatch,
          "a 206 Partial Content answered a request that asked for no range",
          discardPartial: true
        )
      }
      guard let value = head.headerFields[.contentRange], let contentRange = ContentRange(value),
        let range = contentRange.range
      else {
        return .fail(.rangeMismatch, "a 206 Partial Content without a usable Content-Range", discardPartial: true)
      }
      guard range.lowerBound == offset else {
        return .fail(
          .rangeMismatch,
          "the 206 Partial Content starts at byte \(range.lowerBound), not at \(offset) where the partial file ends",
          discardPartial: true
        )
      }
      guard !isContentCoded(head) else {
        return .fail(
          .rangeMismatch,
          "the 206 Partial Content is content-coded, so its range is not a range of the file",
          discardPartial: true
        )
      }
      guard isSameVersion(head, validator: validator),
        length == nil || contentRange.length == nil || length == contentRange.length
      else { return .restart }
      return .append(expectedLength: range.upperBound - range.lowerBound + 1)
    case 416 where ranged:
      let length = head.headerFields[.contentRange].flatMap(ContentRange.init)?.length
      return length == offset ? .complete : .restart
    case 200..<300:
      return .writeWhole
    default:
      return .fail(
        .unacceptableStatus,
        "the server answered \(head.status.code) \(head.status.reasonPhrase), not a file",
        discardPartial: false
      )
    }
  }

  /// Whether a `206` is of the version named by `validator`, the value sent in `If-Range`: a strong entity tag must
  /// equal the response's `ETag` exactly (a weak one never matches: RFC 9110, 8.8.3.2), a date the response's
  /// `Last-Modified`. Without a validator sent, or without the matching field, nothing proves it is. (An entity tag
  /// a server sends without its quotes, as httpbin does, is compared with `ETag` as it was recorded from it.)
  static func isSameVersion(_ head: HTTPResponse, validator: String?) -> Bool {
    guard let validator, !validator.hasPrefix("W/") else { return false }
    if head.headerFields[.eTag] == validator { return true }
    return !validator.hasPrefix("\"") && head.headerFields[.lastModified] == validator
  }

  /// The value to send in `If-Range` to continue a body of this response: its entity tag when strong, else its
  /// `Last-Modified` when it has no entity tag at all (RFC 9110, 13.1.5: never a weak tag, nor a date beside one);
  /// `nil` when neither, or when the body is content-coded (a later range would be of another representation).
  static func validator(of head: HTTPResponse) -> String? {
    guard !isContentCoded(head) else { return nil }
    if let tag = head.headerFields[.eTag] {
      return !tag.hasPrefix("W/") && ResumeRecord.isPlainValue(tag) ? tag : nil
    }
    if let date = head.headerFields[.lastModified], ResumeRecord.isPlainValue(date) { return date }
    return nil
  }

  /// Whether the response names a content coding other than `identity`.
  static func isContentCoded(_ head: HTTPResponse) -> Bool {
    guard let coding = head.headerFields[.contentEncoding] else { return false }
    return coding.lowercased().split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) != "identity" }
  }
}
