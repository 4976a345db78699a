import MalibuCore

/// Why an offline-store or HTTP-cache operation failed.
///
/// ```swift
/// do {
///   try store.save(request)
/// } catch let error as StorageError where error.code == .ioFailed {
///   print(error.message)
/// }
/// ```
public struct StorageError: Error, Sendable, CustomStringConvertible {
  /// What went wrong. New codes can be added without breaking anyone's code.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    private let name: String

    private init(_ name: String) {
      self.name = name
    }

    /// A file could not be created, written, synced, renamed, read or removed.
    public static let ioFailed = Code("ioFailed")
    /// A stored entry could not be decoded, has a sequence number that is out of range or taken by an earlier entry,
    /// or is stored under a name that is not its own (it is set aside into `corrupt/`).
    public static let corruptEntry = Code("corruptEntry")
    /// The request cannot be stored: a parameter that cannot be normalised, say.
    public static let unsupportedRequest = Code("unsupportedRequest")
    /// `returnCacheDataDontLoad` asked for a response that is not in the cache.
    public static let cacheMiss = Code("cacheMiss")
    /// The `X-Malibu-Cache-Policy` header names no known ``MalibuCore/CachePolicy``.
    public static let invalidCachePolicy = Code("invalidCachePolicy")
    /// An `X-Malibu-ETag-Policy` request header names no ``/MalibuCore/ETagPolicy``.
    public static let invalidETagPolicy = Code("invalidETagPolicy")
    /// An offline-store entry file that this store did not write: its authentication code is missing or does not
    /// match the store's key (forged, tampered with, or copied from another store). It is set aside, never replayed.
    public static let untrustedEntry = Code("untrustedEntry")
    /// A name that would lead outside its directory: empty where a name is needed, absolute, `.` or `..`, a path
    /// separator or a NUL byte where one component is expected, or a symbolic link that leaves the directory.
    public static let invalidName = Code("invalidName")
    /// The offline store's directory is owned by another ``OfflineRequestStore`` instance, in this process or another
    /// (it holds the directory's `.lock`); this instance was refused at once and changed nothing. Give each worker its
    /// own directory, or close the other instance first.
    public static let directoryInUse = Code("directoryInUse")

    /// The code's name, as spelled in Swift.
    public var description: String { name }
  }

  /// What went wrong.
  public var code: Code
  /// A sentence for people.
  public var message: String
  /// The error of the underlying layer, if any.
  public var underlyingError: (any Error)?

  /// Creates an error.
  /// - Parameters:
  ///   - code: What went wrong.
  ///   - message: A sentence for people.
  ///   - underlyingError: The cause, if any.
  public init(code: Code, message: String, underlyingError: (any Error)? = nil) {
    self.code = code
    self.message = message
    self.underlyingError = underlyingError
  }

  /// `StorageError.<code>: <message>`, followed by the cause when present. The cause's text appears once: what the
  /// message already quotes of it is left out of the `(cause: …)` part.
  public var description: String {
    "StorageError.\(code): \(message)" + CauseText.suffix(for: underlyingError, after: message)
  }
}

extension StorageError: MessageCarrying {}
