public import Foundation

/// `localizedDescription` reads every GraphQL message rather than Foundation's "The operation could not be completed".
extension GraphQLError: LocalizedError {
  /// The ``summary``: every message with its path, what `localizedDescription` returns.
  public var errorDescription: String? { summary }
}
