/// Why a cassette could not answer, or could not be read or written. ``CassetteTransport`` throws it as the
/// `underlyingError` of a `TransportError` (code `other`) with the same message, so the facade reports it like any
/// transport failure.
public struct CassetteError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What went wrong.
  public enum Code: String, Sendable, Hashable, CaseIterable {
    /// No recording matches the request (the message names the nearest one and what differs), or every matching
    /// recording was already replayed.
    case unmatched
    /// An entry is not a cassette entry: not JSON, a field missing or out of range, a body that does not match
    /// its digest or length.
    case malformedEntry
    /// A file is a symbolic link, not a regular file, or an entry names a body file other than its own.
    case unsafeFile
    /// A file, or the body an entry declares, is larger than the cassette reads.
    case tooLarge
    /// A body file is shorter than its entry declares.
    case truncated
    /// The file system failed: the directory cannot be listed or written.
    case ioFailed
  }

  /// What went wrong.
  public var code: Code
  /// A sentence for people, naming the file.
  public var message: String

  /// Creates an error.
  /// - Parameters:
  ///   - code: What went wrong.
  ///   - message: A sentence for people.
  public init(code: Code, message: String) {
    self.code = code
    self.message = message
  }

  /// "cassette `code`: `message`".
  public var description: String { "cassette \(code.rawValue): \(message)" }
}
