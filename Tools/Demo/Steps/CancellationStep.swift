import Malibu

/// Cancelling a request stops its transfer. `promise.cancel()` rejects that promise at once with
/// `CancellationError`; `cancelAllRequests()` rejects every pending request of the networking with `NetworkError`
/// code `cancelled`. The networking is `.sync` (one request at a time), so the next request going straight through
/// shows that the transfer really stopped instead of holding the slot for ten seconds.
enum CancellationStep {
  static func run(_ options: DemoOptions) async throws {
    let networking = Networking<HttpbinEndpoint>(mode: .sync)

    var start = ContinuousClock.now
    let promise = networking.request(.delay(seconds: 10))
    try await Task.sleep(for: .milliseconds(200))
    promise.cancel()
    let cancelled = await failure(of: promise)
    var elapsed = ContinuousClock.now - start
    guard let cancelled, isCancellationError(cancelled) else {
      throw TourFailure("promise.cancel() ended the request with \(String(describing: cancelled))")
    }
    var next = try await nextRequest(on: networking)
    report(
      "GET /delay/10, promise.cancel() after 200 ms → \(type(of: cancelled)) in \(elapsed.shortDescription); \(next)"
    )

    start = ContinuousClock.now
    let pending = networking.request(.delay(seconds: 10))
    try await Task.sleep(for: .milliseconds(200))
    networking.cancelAllRequests()
    let rejection = await failure(of: pending)
    elapsed = ContinuousClock.now - start
    guard let error = rejection as? NetworkError, error.code == .cancelled else {
      throw TourFailure("cancelAllRequests() ended the request with \(String(describing: rejection))")
    }
    next = try await nextRequest(on: networking)
    report(
      "GET /delay/10, cancelAllRequests() after 200 ms → NetworkError code \(error.code) "
        + "in \(elapsed.shortDescription); \(next)"
    )
  }

  /// Sends `GET /uuid`, which on a `.sync` networking goes out only once the cancelled transfer has let go.
  private static func nextRequest(on networking: Networking<HttpbinEndpoint>) async throws -> String {
    let (response, elapsed) = try await timed { try await networking.request(.uuid).validate().value }
    try expect(elapsed < .seconds(5), "the next request waited \(elapsed.shortDescription) behind the cancelled one")
    return "the next request: \(response.statusCode) in \(elapsed.shortDescription)"
  }
}
