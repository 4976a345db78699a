/// Whether a request is kept in the offline store when it fails because the host cannot be reached.
public enum StorePolicy: Hashable, Sendable {
  /// The request is sent once; a failure is reported to the caller and forgotten.
  case unspecified
  /// A request that fails because the host cannot be reached is persisted and re-sent by `replay()`.
  case offline
}
