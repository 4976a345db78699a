import Malibu
import MalibuTestSupport
import Testing

/// Nikka's provider hooks: `shouldContinue` (stop serving on chosen failures, until `resume()`) and a networking
/// `validate` hook whose errors reach the caller as they were thrown.
@Suite("shouldContinue and the validate hook")
struct ProviderHookTests {
  /// A domain error of an API that answers `200` with an error object.
  struct APIError: Error, Equatable {
    let code: Int
  }

  /// `/api/me` answers 401 (a revoked token), `/api/boards` JSON boards, `/api/error` a 200 with an error body.
  static func makeStubbedTransport() -> MockTransport {
    let transport = makeTransport()
    transport.stub(.get, "/api/me", status: .unauthorized, headerFields: jsonHeaders, body: Data("{}".utf8))
    transport.stub(.get, "/api/boards", headerFields: jsonHeaders, body: boardsJSON)
    transport.stub(.get, "/api/error", headerFields: jsonHeaders, body: Data(#"{"error":{"code":42}}"#.utf8))
    return transport
  }

  /// A 401 from `/api/me` stops the networking: later requests fail at once with `stopped` and are never sent,
  /// until `resume()`.
  @Test func aRevokedTokenStopsTheNetworkingUntilResumed() async throws {
    let transport = Self.makeStubbedTransport()
    let networking = Networking<Probe>(transport: .custom(transport))
    let asked = Box(0)
    networking.shouldContinue = { failure in
      asked.update { $0 += 1 }
      return
        !(failure.endpoint?.request.resource.urlString == "me" && failure.networkError?.response?.statusCode == 401)
    }
    // Another failure does not stop it.
    #expect(
      await networkError(networking.request(Probe(.get("boards"))).decode(using: Board.self))?.code == .decodingFailed
    )
    #expect(!networking.isStopped)

    #expect(await networkError(networking.request(Probe(.get("me"))).validate())?.code == .unacceptableStatusCode)
    #expect(networking.isStopped)
    #expect(networking.stoppingFailure?.endpoint?.request.resource.urlString == "me")
    let sent = transport.recordedRequests.count

    var failures = networking.failures.makeAsyncIterator()
    let refused = await networkError(networking.request(Probe(.get("boards"))))
    #expect(refused?.code == .stopped)
    #expect((refused?.underlyingError as? NetworkError)?.code == .unacceptableStatusCode)
    #expect(refused?.message.contains("after Probe failed (unacceptableStatusCode); call resume()") == true)
    #expect(transport.recordedRequests.count == sent)  // never sent
    #expect(await failures.next()?.networkError?.code == .stopped)  // published, not asked about
    #expect(asked.value == 2)

    networking.resume()
    #expect(!networking.isStopped)
    let boards = try await networking.request(Probe(.get("boards"))).validate().decode(using: [Board].self).value
    #expect(boards.count == 2)
    #expect(transport.recordedRequests.count == sent + 1)
  }

  /// A request waiting in the mode's queue when the networking stops fails with `stopped` when its turn comes; the
  /// queue keeps working after `resume()`.
  @Test func queuedRequestsFailWhenTheirTurnComesAndTheQueueKeepsWorking() async throws {
    let release = Promise<Void>()
    let transport = Self.makeStubbedTransport()
    transport.stub(.get, "/api/held") { _ in
      try await release.value
      return MockTransport.Reply(status: .unauthorized)
    }
    let networking = Networking<Probe>(mode: .limited(1), transport: .custom(transport))
    networking.shouldContinue = { $0.networkError?.response?.statusCode != 401 }
    networking.validate = { response in
      if response.statusCode == 401 {
        throw NetworkError(code: .unacceptableStatusCode, message: "401", response: response)
      }
    }
    let held = networking.request(Probe(.get("held")))
    await eventually("held is sent") { transport.recordedRequests.count == 1 }
    let queued = networking.request(Probe(.get("boards")))
    release.resolve()
    #expect(await networkError(held)?.code == .unacceptableStatusCode)
    #expect(await networkError(queued)?.code == .stopped)
    #expect(await networkError(networking.request(Probe(.get("boards"))))?.code == .stopped)
    #expect(transport.recordedRequests.count == 1)
    networking.resume()
    #expect(try await networking.request(Probe(.get("boards"))).value.statusCode == 200)
  }

  /// The networking's `validate` hook: its error reaches the caller as it was thrown, not as `transportFailed`, and
  /// is published; a response it accepts passes.
  @Test func theValidateHooksErrorReachesTheCallerAsThrown() async throws {
    let networking = Networking<Probe>(transport: .custom(Self.makeStubbedTransport()))
    struct Body: Decodable {
      struct Inner: Decodable { let code: Int }
      let error: Inner?
    }
    networking.validate = { response in
      if let body = try? JSONDecoder().decode(Body.self, from: response.data), let error = body.error {
        throw APIError(code: error.code)
      }
    }
    let seen = Box<[APIError]>([])
    networking.onFailure = { failure in
      if let error = failure.error as? APIError { seen.update { $0.append(error) } }
    }
    do {
      _ = try await networking.request(Probe(.get("error"))).validate().toJsonDictionary().value
      Issue.record("the request succeeded")
    } catch let error as APIError {
      #expect(error == APIError(code: 42))
    }
    // Async/await and the promise's `fail` see the same error.
    let result = await outcome(networking.request(Probe(.get("error"))))
    guard case .failure(let error) = result else { throw NetworkError(code: .cancelled, message: "unexpected") }
    #expect(error as? APIError == APIError(code: 42))
    #expect(seen.value == [APIError(code: 42), APIError(code: 42)])

    let boards = try await networking.request(Probe(.get("boards"))).validate().decode(using: [Board].self).value
    #expect(boards.count == 2)
  }

  /// Written as transport middleware instead (what users had to do), the same check surfaces as `transportFailed`:
  /// the reason for the hook.
  @Test func theSameCheckAsTransportMiddlewareIsWrapped() async throws {
    struct Check: Middleware {
      func intercept(
        _ request: HTTPRequest,
        body: RequestBody?,
        options: TransferOptions,
        next: Next
      ) async throws -> TransportResponse {
        _ = try await next(request, body, options)
        throw APIError(code: 42)
      }
    }
    let transport = Self.makeStubbedTransport().with(middleware: [Check()])
    let networking = Networking<Probe>(transport: .custom(transport))
    let error = await networkError(networking.request(Probe(.get("error"))))
    #expect(error?.code == .transportFailed)
    #expect(error?.underlyingError as? APIError == APIError(code: 42))
  }
}
