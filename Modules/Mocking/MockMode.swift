/// Which requests of a networking mocks answer, after early Malibu's `Malibu.mode`.
///
/// ```swift
/// networking.mockMode = .mocksOnly   // tests and previews: never touch the network
/// ```
public enum MockMode: String, Sendable, Hashable, CaseIterable {
  /// Mocks are ignored: every request goes to the network.
  case realOnly
  /// Every request is answered by a mock; one without a mock fails with `NetworkError` code `missingMock`, without
  /// touching the network.
  case mocksOnly
  /// A request with a mock is answered by it, any other goes to the network (the default).
  case mixed
}
