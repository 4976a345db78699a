import Foundation

/// The error every Malibu module reports: a code to branch on, a message for people, the response when there is
/// one, and the error that caused it.
///
/// ```swift
/// do {
///   let boards = try await networking.request(.fetchBoards).validate().decode(using: [Board].self).value
/// } catch let error as NetworkError where error.code == .unacceptableStatusCode {
///   print(error.response?.statusCode, String(decoding: error.response?.data ?? Data(), as: UTF8.self))
/// }
/// ```
public struct NetworkError: Error, Sendable, CustomStringConvertible {
  /// What went wrong, as a value to compare against. New codes can be added without breaking anyone's code.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    private let name: String

    private init(_ name: String) {
      self.name = name
    }

    /// The base URL or the resource does not form a valid absolute URL.
    public static let invalidURL = Code("invalidURL")
    /// A header name is not a valid token, or a value contains CR, LF or NUL.
    public static let invalidHeader = Code("invalidHeader")
    /// A parameter value is of a kind that cannot be sent.
    public static let unsupportedParameter = Code("unsupportedParameter")
    /// Parameters could not be encoded into a body.
    public static let encodingFailed = Code("encodingFailed")
    /// No parameter encoder is registered for the request's content type.
    public static let missingEncoder = Code("missingEncoder")
    /// The response's status code is not among the accepted ones.
    public static let unacceptableStatusCode = Code("unacceptableStatusCode")
    /// The response's content type is not among the accepted ones.
    public static let unacceptableContentType = Code("unacceptableContentType")
    /// The response has no `Content-Type` where one was required.
    public static let missingContentType = Code("missingContentType")
    /// A `Content-Type` or `Accept` header could not be parsed.
    public static let invalidContentType = Code("invalidContentType")
    /// The response body is empty where a value was expected.
    public static let emptyResponse = Code("emptyResponse")
    /// The body could not be decoded as text in its character set.
    public static let stringDecodingFailed = Code("stringDecodingFailed")
    /// The body is not well-formed JSON.
    public static let jsonSerializationFailed = Code("jsonSerializationFailed")
    /// The body is JSON, but not of the expected shape (an array where an object was asked for, say).
    public static let unexpectedJSONShape = Code("unexpectedJSONShape")
    /// The body could not be decoded into the requested `Decodable` type; the cause is the `DecodingError`.
    public static let decodingFailed = Code("decodingFailed")
    /// The request was cancelled.
    public static let cancelled = Code("cancelled")
    /// A plain `http://` request, or a redirect to one, refused under an HTTPS-only policy (`insecureHTTP = .refuse`)
    /// before anything was sent to that URL; the message names the URL's host. The cause is the `TransportError`.
    public static let insecureScheme = Code("insecureScheme")
    /// The connection policy refused the address a connection was about to open (a redirect into `169.254.169.254`,
    /// say) before anything was sent to it; the message names the host and the address. The cause is the
    /// `TransportError`.
    public static let addressNotAllowed = Code("addressNotAllowed")
    /// A timeout ended the request: no connection in time (`timeouts.connect`), no byte moved for too long
    /// (`timeouts.idle`), or the whole request took too long (`timeouts.total`). The message says which; the cause is
    /// the `TransportError` (`connectTimeout`, `idleTimeout` or `totalTimeout`).
    public static let timedOut = Code("timedOut")
    /// The response body is larger than the limit it was read with (`maximumResponseSize`, the decompression limit,
    /// a download's `maxBytes`); the message names the setting that raises it.
    public static let bodyTooLarge = Code("bodyTooLarge")
    /// The transport failed to send the request or receive the response; the cause says how.
    public static let transportFailed = Code("transportFailed")
    /// A middleware, or another step before sending, stopped the request.
    public static let requestRejected = Code("requestRejected")
    /// The networking stopped serving requests after its `shouldContinue` hook said so, until it is resumed.
    public static let stopped = Code("stopped")
    /// The networking, or the transport it sends through, is shutting down (`shutdown(gracePeriod:)`) or has shut
    /// down: it takes no new request.
    public static let shutDown = Code("shutDown")
    /// The networking sends mocks only, and no mock answers this request; the message names the endpoint.
    public static let missingMock = Code("missingMock")

    // Typed requests and resilient decoding (the facade's `TypedRequest`, MalibuSerialization's `LossyArray`).
    /// Elements of a lossy array did not decode and were left out; the cause is a `SkippedElements` listing them.
    /// Reported to a networking's failure hooks, never thrown: the request itself succeeds.
    public static let skippedElements = Code("skippedElements")
    /// The resource did not decode, and the request's fallback resource did; the cause carries the fallback value.
    public static let decodedFallback = Code("decodedFallback")
    /// A GraphQL response carries `errors`; the cause is a `GraphQLError` with every message and path, and the
    /// partial `data` when there is some.
    public static let graphQLErrors = Code("graphQLErrors")

    // Downloads (the facade's `download(_:to:resume:maxBytes:)`); the cause is the transport's `DownloadError`.
    /// The download's destination directory does not exist (or is not a directory); nothing was sent.
    public static let missingDirectory = Code("missingDirectory")
    /// A partial response did not continue the partial file (its `Content-Range` did not start where the file ends,
    /// was missing or malformed, or the body's length did not match it); the partial file was discarded.
    public static let rangeMismatch = Code("rangeMismatch")
    /// The downloaded body ended after fewer or more bytes than its `Content-Length` announced.
    public static let lengthMismatch = Code("lengthMismatch")
    /// Another download in this process is writing to the same destination.
    public static let destinationBusy = Code("destinationBusy")
    /// The download's partial file or its record is a link or special file planted under its name; it was not
    /// followed or written through.
    public static let untrustedFile = Code("untrustedFile")
    /// The downloaded file could not be created, written or moved into place; the cause's cause says why.
    public static let fileSystem = Code("fileSystem")

    /// The code's name, as spelled in Swift.
    public var description: String { name }
  }

  /// What went wrong.
  public var code: Code
  /// A sentence for people, naming the value at fault.
  public var message: String
  /// The response, when the failure is about one, so the error body stays readable.
  public var response: Response?
  /// The error that caused this one, if any (a `DecodingError`, a transport error, ...).
  public var underlyingError: (any Error)?

  /// Creates an error.
  /// - Parameters:
  ///   - code: What went wrong.
  ///   - message: A sentence for people.
  ///   - response: The response the failure is about, if any.
  ///   - underlyingError: The cause, if any.
  public init(code: Code, message: String, response: Response? = nil, underlyingError: (any Error)? = nil) {
    self.code = code
    self.message = message
    self.response = response
    self.underlyingError = underlyingError
  }

  /// `NetworkError.<code>: <message>`, followed by the status and the cause when present. The cause's text appears
  /// once: what the message already quotes of it is left out of the `(cause: …)` part.
  public var description: String {
    var text = "NetworkError.\(code): \(message)"
    if let response { text += " [status \(response.statusCode)]" }
    text += CauseText.suffix(for: underlyingError, after: message)
    return text
  }
}

extension NetworkError: MessageCarrying {}

/// An error with a sentence of its own, which an error wrapping it may already quote.
package protocol MessageCarrying: Error {
  /// The error's sentence for people, without its type or code.
  var message: String { get }
}

/// The ` (cause: …)` part of an error's description, without repeating what the error's message already says.
package enum CauseText {
  /// ` (cause: <text>)` for `cause`, or `""` when there is none or `message` already says all of it.
  ///
  /// A cause whose description contains `message` (a wrapper that took over the cause's message), or whose own
  /// message `message` quotes, is shown without that text: `(cause: TransportError.idleTimeout)`.
  /// - Parameters:
  ///   - cause: The underlying error.
  ///   - message: The message of the error that wraps it.
  /// - Returns: The text to append to the description.
  package static func suffix(for cause: (any Error)?, after message: String) -> String {
    guard let cause else { return "" }
    let text = String(describing: cause)
    if text.isEmpty || message.contains(text) { return "" }
    var quoted: String?
    if let carrier = cause as? any MessageCarrying, !carrier.message.isEmpty, message.contains(carrier.message) {
      quoted = carrier.message
    } else if let nsError = Self.foundationError(cause), message.contains(nsError.localizedDescription) {
      // A Foundation error (a URLError, say) whose text the message quotes: its domain and code are what is left.
      return " (cause: \(nsError.domain) \(nsError.code))"
    } else if !message.isEmpty, text.contains(message) {
      quoted = message
    }
    guard let quoted, let range = text.firstRange(of: quoted) else { return " (cause: \(text))" }
    let head = text[..<range.lowerBound].trimmingSuffix(while: { $0 == ":" || $0 == " " })
    let tail = text[range.upperBound...]
    let rest = (head + tail).trimmingSuffix(while: { $0 == " " })
    return rest.isEmpty ? "" : " (cause: \(rest))"
  }

  /// `cause` as an `NSError` with a text of its own, when it is one (a Swift error bridged to `NSError` has only a
  /// generic text, which no message quotes).
  private static func foundationError(_ cause: any Error) -> NSError? {
    let nsError = cause as NSError
    let text = nsError.localizedDescription
    guard !text.isEmpty, nsError.userInfo[NSLocalizedDescriptionKey] != nil || cause is URLError else { return nil }
    return nsError
  }
}

extension StringProtocol {
  /// The text without the trailing characters that match `predicate`.
  fileprivate func trimmingSuffix(while predicate: (Character) -> Bool) -> String {
    var end = endIndex
    while end > startIndex, predicate(self[index(before: end)]) { end = index(before: end) }
    return String(self[..<end])
  }
}
