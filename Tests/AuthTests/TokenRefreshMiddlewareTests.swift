import Foundation
import HTTPTypes
import MalibuAuth
@_spi(Malibu) import MalibuCore
import MalibuTestSupport
import MalibuTransport
import Testing

private struct RefreshFailed: Error, Equatable {
  var attempt: Int
}

@Suite struct TokenRefreshMiddlewareTests {
  private let options = TransferOptions()

  @Test func sendsTheTokenAndPassesSuccessThrough() async throws {
    let fake = FakeTransport(accepting: "good")
    let counter = RefreshCounter()
    let tokens = TokenRefreshMiddleware(token: "good", origin: URL(string: api)) {
      _ = counter.record()
      return "other"
    }
    let response = try await fake.with(middleware: [tokens]).send(.get("\(api)/a"), body: nil, options: options)
    #expect(response.head.status == .ok)
    #expect(fake.authorizations == ["Bearer good"])
    #expect(counter.calls == 0)
  }

  @Test func twentyConcurrent401sShareOneRefreshAndRetryOnce() async throws {
    let fake = FakeTransport(accepting: "fresh")
    let counter = RefreshCounter()
    let everyoneWaits = Gate()
    let tokens = TokenRefreshMiddleware(token: "stale", origin: URL(string: api)) {
      _ = counter.record()
      await everyoneWaits.wait()
      return "fresh"
    }
    let transport = fake.with(middleware: [tokens])
    let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
      for index in 0..<20 {
        group.addTask { try await transport.send(.get("\(api)/\(index)"), body: nil, options: options).head.status }
      }
      try await eventually { tokens.waitingCount == 20 }
      everyoneWaits.open()
      return try await group.reduce(into: []) { $0.append($1) }
    }
    #expect(statuses == Array(repeating: .ok, count: 20))
    #expect(counter.calls == 1)
    #expect(tokens.token == "fresh")
    let sent = fake.authorizations
    #expect(sent.count == 40)
    #expect(sent.filter { $0 == "Bearer stale" }.count == 20)
    #expect(sent.filter { $0 == "Bearer fresh" }.count == 20)
    for index in 0..<20 {
      #expect(
        fake.requests.filter { $0.path == "/\(index)" }.map { $0.headerFields[.authorization] } == [
          "Bearer stale", "Bearer fresh",
        ]
      )
    }
  }

  @Test func a401ForAnAlreadyReplacedTokenRetriesWithoutRefreshing() async throws {
    let fake = FakeTransport(accepting: "fresh")
    let counter = RefreshCounter()
    let tokens = TokenRefreshMiddleware(token: "stale", origin: URL(string: api)) {
      _ = counter.record()
      return "fresh"
    }
    let transport = fake.with(middleware: [tokens])
    let late = Task { try await transport.send(.get("\(api)/late", hold: true), body: nil, options: options) }
    try await eventually { fake.requests.count == 1 }
    let early = try await transport.send(.get("\(api)/early"), body: nil, options: options)
    #expect(early.head.status == .ok)
    fake.release()
    #expect(try await late.value.head.status == .ok)
    #expect(counter.calls == 1)
    #expect(fake.requests.map(\.path) == ["/late", "/early", "/early", "/late"])
    #expect(fake.authorizations == ["Bearer stale", "Bearer stale", "Bearer fresh", "Bearer fresh"])
  }

  @Test func aFailedRefreshFailsEveryWaiterAndTheNextRequestRefreshesAgain() async throws {
    let fake = FakeTransport(accepting: "fresh")
    let counter = RefreshCounter()
    let everyoneWaits = Gate()
    let tokens = TokenRefreshMiddleware(token: "stale", origin: URL(string: api)) {
      let attempt = counter.record()
      guard attempt > 1 else {
        await everyoneWaits.wait()
        throw RefreshFailed(attempt: attempt)
      }
      return "fresh"
    }
    let transport = fake.with(middleware: [tokens])
    let errors = await withTaskGroup(of: (any Error)?.self) { group in
      for index in 0..<5 {
        group.addTask {
          do {
            _ = try await transport.send(.get("\(api)/\(index)"), body: nil, options: options)
            return nil
          } catch {
            return error
          }
        }
      }
      try? await eventually { tokens.waitingCount == 5 }
      everyoneWaits.open()
      return await group.reduce(into: []) { $0.append($1) }
    }
    #expect(errors.count == 5)
    for error in errors {
      let error = try #require(error as? NetworkError)
      #expect(error.code == .requestRejected)
      #expect(error.underlyingError as? RefreshFailed == RefreshFailed(attempt: 1))
      #expect(error.description.contains("RefreshFailed"))
    }
    #expect(counter.calls == 1)
    #expect(fake.requests.count == 5)
    #expect(tokens.token == "stale")

    let response = try await transport.send(.get("\(api)/next"), body: nil, options: options)
    #expect(response.head.status == .ok)
    #expect(counter.calls == 2)
    #expect(fake.authorizations.suffix(2) == ["Bearer stale", "Bearer fresh"])
  }

  @Test(arguments: ["", "two words", "line\r\nbreak"])
  func anUnsendableRefreshedTokenIsAFailedRefresh(refreshed: String) async throws {
    let fake = FakeTransport(accepting: "fresh")
    let tokens = TokenRefreshMiddleware(token: "stale", origin: URL(string: api)) { refreshed }
    await #expect {
      _ = try await fake.with(middleware: [tokens]).send(.get("\(api)/a"), body: nil, options: options)
    } throws: { ($0 as? NetworkError)?.code == .requestRejected }
    #expect(tokens.token == "stale")
    #expect(fake.requests.count == 1)
  }

  @Test func theRetrys401IsReturnedAsItIs() async throws {
    let fake = FakeTransport(accepting: "never-issued")
    let counter = RefreshCounter()
    let tokens = TokenRefreshMiddleware(token: "stale", origin: URL(string: api)) {
      _ = counter.record()
      return "also-rejected"
    }
    let response = try await fake.with(middleware: [tokens]).send(.get("\(api)/a"), body: nil, options: options)
    #expect(response.head.status == .unauthorized)
    #expect(try await response.body.collect(upTo: 100) == Data("no".utf8))
    #expect(counter.calls == 1)
    #expect(fake.authorizations == ["Bearer stale", "Bearer also-rejected"])
  }

  @Test func aStreamedBodyIsNotRetriedButTheTokenIsRefreshed() async throws {
    let fake = FakeTransport(accepting: "fresh")
    let counter = RefreshCounter()
    let tokens = TokenRefreshMiddleware(token: "stale", origin: URL(string: api)) {
      _ = counter.record()
      return "fresh"
    }
    let transport = fake.with(middleware: [tokens])
    let chunks = AsyncStream<Data> { continuation in
      continuation.yield(Data("upload".utf8))
      continuation.finish()
    }
    let body = RequestBody.stream(chunks, length: 6)
    let response = try await transport.send(.get("\(api)/upload"), body: body, options: options)
    #expect(response.head.status == .unauthorized)
    #expect(fake.authorizations == ["Bearer stale"])
    #expect(counter.calls == 1)

    let again = try await transport.send(.get("\(api)/upload"), body: .data(Data("upload".utf8)), options: options)
    #expect(again.head.status == .ok)
    #expect(fake.authorizations == ["Bearer stale", "Bearer fresh"])
  }

  @Test func aStreamedBodyWhoseRefreshFailsGetsTheRefreshError() async throws {
    let fake = FakeTransport(accepting: "fresh")
    let tokens = TokenRefreshMiddleware(token: "stale", origin: URL(string: api)) { throw RefreshFailed(attempt: 1) }
    let chunks = AsyncStream<Data> { continuation in
      continuation.yield(Data("upload".utf8))
      continuation.finish()
    }
    await #expect {
      _ = try await fake.with(middleware: [tokens]).send(
        .get("\(api)/upload"),
        body: .stream(chunks, length: 6),
        options: options
      )
    } throws: { error in
      guard let error = error as? NetworkError else { return false }
      return error.code == .requestRejected && error.underlyingError as? RefreshFailed == RefreshFailed(attempt: 1)
    }
    #expect(fake.authorizations == ["Bearer stale"])
  }

  @Test func aCancelledWaiterEndsAtOnceAndOthersStillRetry() async throws {
    let fake = FakeTransport(accepting: "fresh")
    let counter = RefreshCounter()
    let refreshMayEnd = Gate()
    let tokens = TokenRefreshMiddleware(token: "stale", origin: URL(string: api)) {
      _ = counter.record()
      await refreshMayEnd.wait()
      return "fresh"
    }
    let transport = fake.with(middleware: [tokens])
    let cancelled = Task { try await transport.send(.get("\(api)/cancelled"), body: nil, options: options) }
    let patient = Task { try await transport.send(.get("\(api)/patient"), body: nil, options: options) }
    try await eventually { tokens.waitingCount == 2 }
    cancelled.cancel()
    await #expect {
      _ = try await cancelled.value
    } throws: { ($0 as? NetworkError)?.code == .cancelled }
    #expect(tokens.waitingCount == 1)
    refreshMayEnd.open()
    #expect(try await patient.value.head.status == .ok)
    #expect(counter.calls == 1)
    #expect(fake.requests.filter { $0.path == "/cancelled" }.count == 1)
    #expect(fake.requests.filter { $0.path == "/patient" }.count == 2)
  }

  @Test func aTaskCancelledBeforeItsRefreshFailsWithoutWaiting() async throws {
    let fake = FakeTransport(accepting: "fresh")
    let tokens = TokenRefreshMiddleware(token: "stale", origin: URL(string: api)) { "fresh" }
    let transport = fake.with(middleware: [tokens])
    let task = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return try await transport.send(.get("\(api)/a"), body: nil, options: options)
    }
    await #expect {
      _ = try await task.value
    } throws: { ($0 as? NetworkError)?.code == .cancelled }
    #expect(tokens.waitingCount == 0)
  }

  @Test func withoutATokenTheFirst401FetchesOne() async throws {
    let fake = FakeTransport(accepting: "fresh")
    let tokens = TokenRefreshMiddleware(origin: URL(string: api)) { "fresh" }
    let response = try await fake.with(middleware: [tokens]).send(.get("\(api)/a"), body: nil, options: options)
    #expect(response.head.status == .ok)
    #expect(fake.authorizations == [nil, "Bearer fresh"])
  }

  @Test func otherOriginsGetNoTokenAndNoRefresh() async throws {
    let fake = FakeTransport(accepting: "fresh")
    let counter = RefreshCounter()
    let tokens = TokenRefreshMiddleware(token: "stale") {
      _ = counter.record()
      return "fresh"
    }
    let transport = fake.with(middleware: [tokens])
    #expect(try await transport.send(.get("\(api)/a"), body: nil, options: options).head.status == .ok)
    #expect(tokens.origin?.absoluteString == api)
    let other = try await transport.send(.get("https://evil.net/a"), body: nil, options: options)
    #expect(other.head.status == .unauthorized)
    #expect(fake.authorizations == ["Bearer stale", "Bearer fresh", nil])
    #expect(counter.calls == 1)
  }

  @Test func aRequestWithItsOwnAuthorizationIsLeftAlone() async throws {
    let fake = FakeTransport(accepting: "fresh")
    let counter = RefreshCounter()
    let tokens = TokenRefreshMiddleware(token: "stale", origin: URL(string: api)) {
      _ = counter.record()
      return "fresh"
    }
    var request = HTTPRequest.get("\(api)/a")
    request.headerFields[.authorization] = "Bearer mine"
    let response = try await fake.with(middleware: [tokens]).send(request, body: nil, options: options)
    #expect(response.head.status == .unauthorized)
    #expect(fake.authorizations == ["Bearer mine"])
    #expect(counter.calls == 0)
  }

  @Test func the401BodyIsReleasedBeforeTheRetry() async throws {
    let fake = FakeTransport(accepting: "fresh")
    let terminated = Locked(false)
    fake.setUnauthorizedBody {
      let chunks = AsyncStream<Data> { continuation in
        continuation.onTermination = { _ in terminated.withLock { $0 = true } }
        continuation.yield(Data("unauthorized".utf8))
      }
      return ResponseBody(chunks: chunks)
    }
    let tokens = TokenRefreshMiddleware(token: "stale", origin: URL(string: api)) { "fresh" }
    let response = try await fake.with(middleware: [tokens]).send(.get("\(api)/a"), body: nil, options: options)
    #expect(response.head.status == .ok)
    try await eventually { terminated.withLock { $0 } }
  }

  @Test func setTokenReplacesTheToken() async throws {
    let fake = FakeTransport(accepting: "login")
    let tokens = TokenRefreshMiddleware(origin: URL(string: api)) { "fresh" }
    tokens.setToken("login")
    #expect(tokens.token == "login")
    let response = try await fake.with(middleware: [tokens]).send(.get("\(api)/a"), body: nil, options: options)
    #expect(response.head.status == .ok)
    #expect(fake.authorizations == ["Bearer login"])
  }
}
