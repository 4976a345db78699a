public import Foundation

/// `localizedDescription` reads the error's message rather than Foundation's "The operation could not be completed".
extension TransportError: LocalizedError {
  /// The error's ``message``: what `localizedDescription` returns.
  public var errorDescription: String? { message }
}

/// `localizedDescription` reads the error's message rather than Foundation's "The operation could not be completed".
extension DownloadError: LocalizedError {
  /// The error's ``message``: what `localizedDescription` returns.
  public var errorDescription: String? { message }
}
