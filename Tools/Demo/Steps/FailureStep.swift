import Malibu
import Synchronization

/// Every failure of a networking reaches `onFailure` and the `failures` stream (here a body that does not decode),
/// with its endpoint, request and error. `inFlight` and `activity` count the requests started and not finished.
enum FailureStep {
  static func run(_ options: DemoOptions) async throws {
    let networking = Networking<HttpbinEndpoint>()
    let heard = Mutex<[String]>([])
    networking.onFailure = { failure in
      heard.withLock {
        $0.append(
          "\(failure.endpoint.map { "\($0)" } ?? "typed request") → \(failure.networkError?.code.description ?? "\(failure.error)")"
        )
      }
    }
    let failures = networking.failures

    let rejection = await failure(of: networking.request(.uuid).validate().decode(using: SlideshowDocument.self))
    guard let error = rejection as? NetworkError, error.code == .decodingFailed else {
      throw TourFailure("decoding /uuid as a slideshow ended with \(String(describing: rejection))")
    }
    let streamed = try await within(.seconds(5), "the failures stream") {
      var iterator = failures.makeAsyncIterator()
      return await iterator.next()
    }
    let onFailure = heard.withLock { $0 }
    try expect(onFailure.count == 1, "onFailure heard \(onFailure)")
    guard let streamed, streamed.networkError?.code == .decodingFailed else {
      throw TourFailure("the failures stream yielded \(String(describing: streamed))")
    }
    report("GET /uuid decoded as a Slideshow → NetworkError \(error.code); onFailure heard \(onFailure[0])")
    report(
      "the failures stream yielded the same failure: \(streamed.endpoint.map { "\($0)" } ?? "?"), \(streamed.request.method), "
        + "response status \(streamed.response?.statusCode ?? 0)"
    )

    let activity = networking.activity
    let watcher = Task {
      var seen: [Int] = []
      for await count in activity {
        seen.append(count)
        if count == 0 && seen.count > 1 { break }
      }
      return seen
    }
    let promises = (0..<3).map { _ in networking.request(.delay(seconds: 2)) }
    try await Task.sleep(for: .milliseconds(300))
    let during = networking.inFlight
    for promise in promises { _ = try await promise.validate().value }
    let after = networking.inFlight  // a request leaves the count before its promise wakes the caller
    let seen = try await within(.seconds(5), "the activity stream") { await watcher.value }
    try expect(during == 3 && after == 0, "inFlight was \(during) during three requests and \(after) after")
    report(
      "three GET /delay/2 at once: inFlight \(during) while they ran, \(after) once the last promise settled; "
        + "activity yielded \(seen.map(String.init).joined(separator: " → "))"
    )
  }
}
