public import Foundation
public import HTTPTypes

/// What a finished download returns: where the file is, the response it came from, its size and whether an earlier
/// partial download was continued.
///
/// ```swift
/// let file = try await transport.download(HTTPRequest(method: .get, url: url), to: destination, resume: true)
/// print(file.location.path, file.byteCount, file.resumedFrom ?? 0)
/// ```
public struct DownloadedFile: Sendable {
  /// Where the file now is: the destination the download was given.
  public var location: URL
  /// The head of the response the last bytes came from: `200`, `206` for a continued download, or `416` when the
  /// partial file already held the whole resource.
  public var head: HTTPResponse
  /// The URL of that response, after redirects.
  public var responseURL: URL?
  /// The file's size in bytes.
  public var byteCount: Int64
  /// The offset the transfer continued from when an earlier partial download was resumed, `nil` when the file was
  /// downloaded from its first byte.
  public var resumedFrom: Int64?

  /// Whether an earlier partial download was continued rather than started again.
  public var isResumed: Bool { resumedFrom != nil }

  /// Creates the description of a downloaded file.
  /// - Parameters:
  ///   - location: Where the file is.
  ///   - head: The response head.
  ///   - responseURL: The response's URL.
  ///   - byteCount: The file's size.
  ///   - resumedFrom: The offset a resumed download continued from, or `nil`.
  public init(location: URL, head: HTTPResponse, responseURL: URL?, byteCount: Int64, resumedFrom: Int64?) {
    self.location = location
    self.head = head
    self.responseURL = responseURL
    self.byteCount = byteCount
    self.resumedFrom = resumedFrom
  }
}
