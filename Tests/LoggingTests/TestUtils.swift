import Foundation
import HTTPTypes
import Logging
@_spi(Malibu) import MalibuCore
import MalibuLogging
import MalibuTransport
import Synchronization

/// A clock whose `now` moves forward by `step` each time it is read, so the first measured duration is `step`.
struct SteppingClock: Clock {
  struct Instant: InstantProtocol {
    var offset: Duration
    func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
    func duration(to other: Instant) -> Duration { other.offset - offset }
    static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
  }

  let step: Duration
  private let reads = Counter()

  init(step: Duration = .milliseconds(12)) {
    self.step = step
  }

  var now: Instant {
    Instant(offset: step * reads.next())
  }

  var minimumResolution: Duration { .nanoseconds(1) }

  func sleep(until deadline: Instant, tolerance: Duration?) async throws {}
}

/// A thread-safe counter that hands out 0, 1, 2, ...
final class Counter: Sendable {
  private let count = Locked<Int64>(0)

  func next() -> Int64 {
    count.withLock { count in
      defer { count += 1 }
      return count
    }
  }
}

/// A transport that answers with a fixed response or fails with a fixed error.
struct StubTransport: Transport {
  enum Outcome: Sendable {
    case respond(HTTPResponse, Data, announced: Bool)
    case fail(TransportError)
  }

  let outcome: Outcome

  func send(_ request: HTTPRequest, body: RequestBody?, options: TransferOptions) async throws -> TransportResponse {
    switch outcome {
    case .respond(let head, let data, let announced):
      let body =
        announced
        ? ResponseBody(data: data)
        : ResponseBody(
          chunks: AsyncStream { continuation in
            continuation.yield(data)
            continuation.finish()
          }
        )
      return TransportResponse(head: head, url: nil, body: body)
    case .fail(let error):
      throw error
    }
  }
}
