public import Foundation

/// `localizedDescription` reads the error's message rather than Foundation's "The operation could not be completed".
extension StorageError: LocalizedError {
  /// The error's ``message``: what `localizedDescription` returns.
  public var errorDescription: String? { message }
}
