public import Foundation

/// A file of the offline store that could not be loaded as an entry, and where it was put.
///
/// A corrupt, unreadable or untrusted file never stops the other entries from loading: it is moved into the store's
/// `corrupt/` folder (kept for inspection, never replayed) and reported.
public struct OfflineStoreProblem: Sendable, CustomStringConvertible {
  /// The entry's file name in the store directory.
  public var fileName: String
  /// ``StorageError/Code/untrustedEntry`` for a file the store did not write (or a bad key file),
  /// ``StorageError/Code/corruptEntry`` for one that is not an entry, ``StorageError/Code/ioFailed`` when it cannot
  /// be read.
  public var code: StorageError.Code
  /// Why it could not be loaded.
  public var reason: String
  /// Where the file was moved to, or `nil` when even moving it failed.
  public var movedTo: URL?
  /// The decoding or I/O error behind it.
  public var underlyingError: (any Error)?

  /// Creates a problem report.
  /// - Parameters:
  ///   - fileName: The entry's file name.
  ///   - code: The kind of problem.
  ///   - reason: Why it could not be loaded.
  ///   - movedTo: Where it was moved to.
  ///   - underlyingError: The error behind it.
  public init(
    fileName: String,
    code: StorageError.Code = .corruptEntry,
    reason: String,
    movedTo: URL?,
    underlyingError: (any Error)? = nil
  ) {
    self.fileName = fileName
    self.code = code
    self.reason = reason
    self.movedTo = movedTo
    self.underlyingError = underlyingError
  }

  /// `<file name>: <code>: <reason>`, and where it went.
  public var description: String {
    "\(fileName): \(code): \(reason)" + (movedTo.map { " (moved to \($0.path))" } ?? " (could not be moved aside)")
  }
}

/// What ``OfflineRequestStore/load()`` found: the entries in insertion order and the files it set aside.
public struct OfflineStoreContents: Sendable {
  /// The entries, oldest first.
  public var requests: [StoredRequest]
  /// The entry files that could not be loaded.
  public var problems: [OfflineStoreProblem]

  /// Creates the contents.
  /// - Parameters:
  ///   - requests: The entries, oldest first.
  ///   - problems: The files set aside.
  public init(requests: [StoredRequest], problems: [OfflineStoreProblem]) {
    self.requests = requests
    self.problems = problems
  }
}
