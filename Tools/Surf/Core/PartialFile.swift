public import Foundation

/// `--continue` on a partial file surf did not start: one that curl, wget, HTTPie or a copy left at the download's
/// destination, without the `<file>.partial` and resume record of surf's own downloads (those go on through
/// `Networking.download(_:to:resume:maxBytes:)`).
///
/// As HTTPie's `--continue`: the request asks for `Range: bytes=<size>-` (and `Accept-Encoding: identity`, so that
/// bytes count bytes of the file), with no `If-Range`, for nothing tells which version the bytes are of. Then
/// ``decide(status:contentRange:contentEncoding:offset:)`` says what the answer means.
public enum PartialFile: Sendable {
  /// What to do with the answer to a ranged request for a partial file.
  public enum Decision: Equatable, Sendable {
    /// A `206` that continues the file exactly: append its body, which must be `expectedLength` bytes, and the file is
    /// `totalLength` bytes long when complete (when the server says).
    case append(expectedLength: Int64, totalLength: Int64?)
    /// Another 2xx: the server ignored the range and sends the whole file, which replaces the partial one (HTTPie:
    /// "If the server doesn't support that, the whole file will simply be downloaded").
    case writeWhole
    /// A `416` whose `Content-Range: bytes */<length>` is the file's size: the file is complete already.
    case complete
    /// A `206` whose range is not the one asked for, or is not usable: fail, the file left as it is. The message is
    /// HTTPie's.
    case mismatch(String)
    /// Any other status: not a file.
    case notAFile
  }

  /// The size of the partial file at `destination` when `--continue` goes on from it: a regular file of at least one
  /// byte, and no `<destination>.partial` of surf's own beside it; else `nil`.
  /// - Parameter destination: The download's file.
  /// - Returns: Its size in bytes, or `nil`.
  public static func size(at destination: URL) -> Int64? {
    let own = destination.deletingLastPathComponent().appendingPathComponent(destination.lastPathComponent + ".partial")
    guard !FileManager.default.fileExists(atPath: own.path),
      let attributes = try? FileManager.default.attributesOfItem(atPath: destination.path),
      attributes[.type] as? FileAttributeType == .typeRegular,
      let size = (attributes[.size] as? NSNumber)?.int64Value, size > 0
    else { return nil }
    return size
  }

  /// Decides what an answer to `Range: bytes=<offset>-` means, from its head alone.
  ///
  /// A `206` is appended only when its `Content-Range` starts at `offset` and runs to the end of the resource, as
  /// HTTPie's `parse_content_range` asks, and its body is not content-coded; another 2xx is the whole file; a `416`
  /// saying the resource is `offset` bytes long means the file is complete (surf's addition: running
  /// `surf -dc` again on a finished file succeeds).
  /// - Parameters:
  ///   - status: The response's status code.
  ///   - contentRange: Its `Content-Range`.
  ///   - contentEncoding: Its `Content-Encoding`.
  ///   - offset: The partial file's size, where the range starts.
  /// - Returns: The decision.
  public static func decide(status: Int, contentRange: String?, contentEncoding: String?, offset: Int64) -> Decision {
    switch status {
    case 206:
      guard let contentRange else { return .mismatch("Missing Content-Range") }
      guard let range = ByteRange(contentRange) else {
        return .mismatch("Invalid Content-Range format '\(contentRange)'")
      }
      guard range.first <= range.last, range.length.map({ $0 > range.last }) ?? true else {
        return .mismatch("Invalid Content-Range returned: '\(contentRange)'")
      }
      guard range.first == offset, range.length.map({ range.last + 1 == $0 }) ?? true else {
        return .mismatch(
          "Unexpected Content-Range returned ('\(contentRange)') for the requested Range (\"bytes=\(offset)-\")"
        )
      }
      if let coding = contentEncoding?.lowercased().trimmingCharacters(in: .whitespaces), !coding.isEmpty,
        coding != "identity"
      {
        return .mismatch(
          "the 206 Partial Content is content-coded (\(coding)), so its range is not a range of the file"
        )
      }
      return .append(expectedLength: range.last - range.first + 1, totalLength: range.length)
    case 416:
      guard let contentRange, contentRange.hasPrefix("bytes */"),
        Int64(contentRange.dropFirst("bytes */".count)) == offset
      else { return .notAFile }
      return .complete
    case 200..<300:
      return .writeWhole
    default:
      return .notAFile
    }
  }

  /// `bytes <first>-<last>/<length or *>`.
  struct ByteRange {
    var first: Int64
    var last: Int64
    var length: Int64?

    init?(_ text: String) {
      guard text.hasPrefix("bytes ") else { return nil }
      let spec = text.dropFirst("bytes ".count)
      let halves = spec.split(separator: "/", omittingEmptySubsequences: false)
      guard halves.count == 2 else { return nil }
      let bounds = halves[0].split(separator: "-", omittingEmptySubsequences: false)
      guard bounds.count == 2, let first = Self.number(bounds[0]), let last = Self.number(bounds[1]) else {
        return nil
      }
      self.first = first
      self.last = last
      if halves[1] == "*" {
        length = nil
      } else if let length = Self.number(halves[1]) {
        self.length = length
      } else {
        return nil
      }
    }

    static func number(_ text: Substring) -> Int64? {
      guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
      return Int64(text)
    }
  }
}
