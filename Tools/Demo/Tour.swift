import Foundation

/// The tour: each step shows one part of Malibu against httpbin, prints what it did and what came back, and throws
/// when the library does not behave as the step expects, so the demo doubles as a smoke test.
struct Tour {
  /// One stop of the tour.
  struct Step: Sendable {
    var title: String
    var run: @Sendable (DemoOptions) async throws -> Void
  }

  static let steps = [
    Step(title: "An endpoint enum and a promise chain", run: EndpointStep.run),
    Step(title: "validate() and decode(using:)", run: ValidationStep.run),
    Step(title: "JSON and multipart posts", run: UploadStep.run),
    Step(title: "A gzip-encoded answer", run: GzipStep.run),
    Step(title: "The same request on both transports", run: TransportStep.run),
    Step(title: "A mock next to the network", run: MockStep.run),
    Step(title: "An offline request, stored and replayed", run: OfflineStep.run),
    Step(title: "Cancellation", run: CancellationStep.run),
    Step(title: "A Codable body and per-request options", run: CodableStep.run),
    Step(title: "Retries", run: RetryStep.run),
    Step(title: "Cookies", run: CookieStep.run),
    Step(title: "A download and a stream", run: DownloadStep.run),
    Step(title: "Server-sent events: a completion and a reconnection", run: EventsStep.run),
    Step(title: "Failures and activity", run: FailureStep.run),
    Step(title: "Mock modes", run: MockModeStep.run),
    Step(title: "ETag revalidation", run: ETagStep.run),
    Step(title: "HTTPS only", run: InsecureHTTPStep.run),
    Step(title: "Typed requests, a lossy list and GraphQL", run: TypedRequestStep.run),
    Step(title: "Record and replay", run: CassetteStep.run),
  ]

  let options: DemoOptions

  /// Runs every step in order; returns `false` (after saying why) at the first one that fails.
  func run() async -> Bool {
    say("Malibu tour against httpbin at \(options.httpbin.absoluteString)")
    let start = ContinuousClock.now
    for (index, step) in Self.steps.enumerated() {
      say("[\(index + 1)/\(Self.steps.count)] \(step.title)")
      do {
        try await step.run(options)
      } catch {
        say("  ✗ \(error)")
        printError("MalibuDemo: step \(index + 1) (\(step.title)) failed: \(error)")
        return false
      }
    }
    say("Tour complete: \(Self.steps.count) steps in \((ContinuousClock.now - start).shortDescription)")
    return true
  }
}
