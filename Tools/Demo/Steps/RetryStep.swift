import Malibu

/// A `RetryPolicy` in the transfer options sends a request again after a passing failure (a `503` here, which httpbin
/// answers every time). The response record Malibu logs says how many times it was sent again
/// (`http.request.resend_count`); without a policy, it was sent once.
enum RetryStep {
  static func run(_ options: DemoOptions) async throws {
    let retrying = Networking<HttpbinEndpoint>()
    retrying.transferOptions.retry = RetryPolicy(
      maxAttempts: 3,
      baseDelay: .milliseconds(100),
      maxDelay: .milliseconds(200)
    )
    let (response, resends, elapsed) = try await send(.status(503), on: retrying)
    try expect(response.statusCode == 503, "GET /status/503 with retries answered \(response.statusCode)")
    try expect(
      resends == 2,
      "with maxAttempts 3, http.request.resend_count was \(resends.map { "\($0)" } ?? "missing")"
    )
    report(
      "GET /status/503 with RetryPolicy(maxAttempts: 3): still 503 after \((resends ?? 0) + 1) attempts "
        + "(http.request.resend_count=\(resends ?? 0)) in \(elapsed.shortDescription)"
    )

    let (once, onceResends, _) = try await send(.status(503), on: Networking<HttpbinEndpoint>())
    try expect(onceResends == 0, "without a policy, http.request.resend_count was \(String(describing: onceResends))")
    report("the same request without a policy (the default): \(once.statusCode), sent once (resend_count=0)")
  }

  /// Sends `endpoint` with a recording logger; returns the response, the resend count of its response record and the
  /// time it took.
  private static func send(
    _ endpoint: HttpbinEndpoint,
    on networking: Networking<HttpbinEndpoint>
  ) async throws -> (Response, Int?, Duration) {
    let recorder = LogRecorder()
    let (response, elapsed) = try await timed { try await networking.request(endpoint, logger: recorder.logger).value }
    let resends = recorder.all.compactMap { record in
      record.metadata[LogMetadataKey.resendCount].flatMap { Int("\($0)") }
    }
    return (response, resends.last, elapsed)
  }
}
