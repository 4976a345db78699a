public import HTTPTypes
import MalibuCore

/// Why a download failed after the transfer itself went well (transport failures are ``TransportError``s).
///
/// ```swift
/// do {
///   _ = try await transport.download(request, to: destination)
/// } catch let error as DownloadError where error.code == .unacceptableStatus {
///   print(error.response?.status.code ?? 0)
/// }
/// ```
/// Whatever the error, the destination is left as it was.
public struct DownloadError: Error, Sendable, CustomStringConvertible {
  /// What went wrong. New codes can be added without breaking anyone's code.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    private let name: String

    private init(_ name: String) {
      self.name = name
    }

    /// The response's status is not one a file is written from (a 2xx, or `206` / `416` to a resumed request); its
    /// body was not read.
    public static let unacceptableStatus = Code("unacceptableStatus")
    /// A partial response did not continue the partial file: its `Content-Range` did not start where the file
    /// ends, was missing or malformed, or the body's length did not match it. The partial file is discarded, so the
    /// next download starts from the first byte.
    public static let rangeMismatch = Code("rangeMismatch")
    /// The body ended after fewer or more bytes than its `Content-Length` announced.
    public static let lengthMismatch = Code("lengthMismatch")
    /// The destination's directory does not exist, or is not a directory. Found before the request: nothing is
    /// sent.
    public static let missingDirectory = Code("missingDirectory")
    /// Another download in this process is writing to the same destination.
    public static let destinationBusy = Code("destinationBusy")
    /// The body is larger than the download's `maxBytes` (counting the bytes of a resumed partial file): announced
    /// so by its `Content-Length` or `Content-Range` (refused before a byte is written), or found so while it was
    /// written (the transfer is stopped at the limit).
    public static let bodyTooLarge = Code("bodyTooLarge")
    /// The partial file or its record is not what a download leaves behind (a regular file, with a single link for the
    /// partial file): a symbolic or hard link or a FIFO was planted under its name. It is never followed, waited on
    /// or written through. Found before the request, nothing is sent and the file is left as it is; found in place
    /// of the partial file once the response arrived, it is removed.
    public static let untrustedFile = Code("untrustedFile")
    /// The file could not be created, written, or moved into place; the underlying error says why.
    public static let fileSystem = Code("fileSystem")

    /// The code's name, as spelled in Swift.
    public var description: String { name }
  }

  /// What went wrong.
  public var code: Code
  /// A sentence for people.
  public var message: String
  /// The response head the failure is about, if any.
  public var response: HTTPResponse?
  /// The cause, if any (a file-system error, say).
  public var underlyingError: (any Error)?

  /// Creates an error.
  /// - Parameters:
  ///   - code: What went wrong.
  ///   - message: A sentence for people.
  ///   - response: The response head, if any.
  ///   - underlyingError: The cause, if any.
  public init(code: Code, message: String, response: HTTPResponse? = nil, underlyingError: (any Error)? = nil) {
    self.code = code
    self.message = message
    self.response = response
    self.underlyingError = underlyingError
  }

  /// `DownloadError.<code>: <message>`, the status when there is a response, then the cause when present.
  public var description: String {
    var text = "DownloadError.\(code): \(message)"
    if let response { text += " [status \(response.status.code)]" }
    return text + CauseText.suffix(for: underlyingError, after: message)
  }
}

extension DownloadError: MessageCarrying {}
