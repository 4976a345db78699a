import Foundation
import HTTPTypes
import MalibuAuth
@_spi(Malibu) import MalibuCore
import MalibuTransport
import Testing

/// A transport that records every request it is sent and answers 200 to `Authorization: Bearer <accepted>` (or to
/// everything when `accepted` is `nil`) and 401 to anything else. Requests with an `X-Hold` field wait until
/// ``release()`` before being answered.
final class FakeTransport: Transport {
  private struct State {
    var requests: [HTTPRequest] = []
    var accepted: String?
    var released = false
    var held: [CheckedContinuation<Void, Never>] = []
    var unauthorizedBody: (@Sendable () -> ResponseBody)?
  }

  private let state: Locked<State>

  init(accepting token: String? = nil) {
    state = Locked(State(accepted: token))
  }

  /// The requests sent so far, in order.
  var requests: [HTTPRequest] { state.withLock { $0.requests } }

  /// The `Authorization` values of the requests sent so far (`nil` where there was none).
  var authorizations: [String?] { requests.map { $0.headerFields[.authorization] } }

  /// Accepts another token from now on.
  func accept(_ token: String?) {
    state.withLock { $0.accepted = token }
  }

  /// Makes 401 responses use this body.
  func setUnauthorizedBody(_ make: @escaping @Sendable () -> ResponseBody) {
    state.withLock { $0.unauthorizedBody = make }
  }

  /// Answers every held request, and every later one at once.
  func release() {
    let held = state.withLock { state in
      state.released = true
      defer { state.held = [] }
      return state.held
    }
    for waiter in held { waiter.resume() }
  }

  func send(_ request: HTTPRequest, body: RequestBody?, options: TransferOptions) async throws -> TransportResponse {
    state.withLock { $0.requests.append(request) }
    if request.headerFields[.hold] != nil {
      await withCheckedContinuation { continuation in
        let now = state.withLock { state in
          if state.released { return true }
          state.held.append(continuation)
          return false
        }
        if now { continuation.resume() }
      }
    }
    let (accepted, unauthorizedBody) = state.withLock { ($0.accepted, $0.unauthorizedBody) }
    let authorized = accepted.map { request.headerFields[.authorization] == "Bearer \($0)" } ?? true
    return TransportResponse(
      head: HTTPResponse(status: authorized ? .ok : .unauthorized),
      url: nil,
      body: authorized
        ? ResponseBody(data: Data("ok".utf8)) : unauthorizedBody?() ?? ResponseBody(data: Data("no".utf8))
    )
  }
}

/// A refresh closure's bookkeeping: how often it ran, and an optional condition it waits for first.
final class RefreshCounter: Sendable {
  private let count = Locked(0)

  var calls: Int { count.withLock { $0 } }

  /// Counts a call and returns its number (1 for the first).
  func record() -> Int {
    count.withLock { count in
      count += 1
      return count
    }
  }
}

/// Waits until `condition` holds, yielding in between; fails the test after many tries instead of hanging.
func eventually(_ condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
  for _ in 0..<20_000 {
    if condition() { return }
    try await Task.sleep(for: .milliseconds(1))
  }
  Issue.record("condition never held", sourceLocation: sourceLocation)
}

extension HTTPField.Name {
  static let hold = HTTPField.Name("X-Hold")!
}

extension HTTPRequest {
  /// A GET to an absolute URL string.
  static func get(_ url: String, hold: Bool = false) -> HTTPRequest {
    let components = URLComponents(string: url)!
    var authority = components.host!
    if let port = components.port { authority += ":\(port)" }
    var request = HTTPRequest(
      method: .get,
      scheme: components.scheme,
      authority: authority,
      path: components.path.isEmpty ? "/" : components.path
    )
    if hold { request.headerFields[.hold] = "1" }
    return request
  }
}

let api = "https://api.example.com"
