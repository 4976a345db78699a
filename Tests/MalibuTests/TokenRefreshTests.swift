import Malibu
import Testing

struct RefreshFailure: Error {}

/// `authenticate(bearerToken:refresh:)`: single-flight refresh on 401 through the facade, on `MockTransport`.
@Suite("Token refresh")
struct TokenRefreshTests {
  /// A transport that answers 401 unless the request carries `Bearer <valid>`, and 200 with JSON otherwise.
  private static func makeGuardedTransport(valid: String) -> MockTransport {
    let transport = MockTransport()
    transport.stub(.get, "/api/**") { request in
      guard request.headerFields[.authorization] == "Bearer \(valid)" else {
        return MockTransport.Reply(status: .unauthorized)
      }
      return MockTransport.Reply(status: .ok, headerFields: jsonHeaders, body: Data("[]".utf8))
    }
    return transport
  }

  @Test func twentyConcurrent401sRefreshOnceAndRetryEachRequestOnce() async throws {
    let transport = Self.makeGuardedTransport(valid: "fresh")
    let networking = Networking<Probe>(transport: .custom(transport))
    let refreshes = Box(0)
    networking.authenticate(bearerToken: "stale") {
      refreshes.update { $0 += 1 }
      // Wait until all 20 first attempts went out with the stale token, so they all get a 401 for it.
      while transport.recordedRequests.count < 20 {
        try await Task.sleep(for: .milliseconds(5))
      }
      return "fresh"
    }
    let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
      for index in 0..<20 {
        group.addTask { try await networking.request(Probe(.get("item/\(index)"))).value.statusCode }
      }
      return try await group.reduce(into: []) { $0.append($1) }
    }
    #expect(statuses == Array(repeating: 200, count: 20))
    #expect(refreshes.value == 1)
    let recorded = transport.recordedRequests
    #expect(recorded.count == 40)
    for index in 0..<20 {
      let attempts = recorded.filter { $0.path == "/api/item/\(index)" }.map { $0.headerFields[.authorization] }
      #expect(attempts == ["Bearer stale", "Bearer fresh"])
    }
  }

  @Test func noInitialTokenRefreshesOnTheFirst401() async throws {
    let transport = Self.makeGuardedTransport(valid: "first")
    let networking = Networking<Probe>(transport: .custom(transport))
    networking.authenticate(bearerToken: nil) { "first" }
    #expect(try await networking.request(Probe(.get("me"))).value.statusCode == 200)
    #expect(transport.recordedRequests.map { $0.headerFields[.authorization] } == [nil, "Bearer first"])
  }

  @Test func aRefreshThatThrowsFailsEveryWaiterAndTheNetworkingKeepsWorking() async throws {
    let transport = Self.makeGuardedTransport(valid: "fresh")
    let networking = Networking<Probe>(transport: .custom(transport))
    let refreshes = Box(0)
    networking.authenticate(bearerToken: "stale") {
      let call = refreshes.update { count in
        count += 1
        return count
      }
      guard call > 1 else {
        while transport.recordedRequests.count < 5 {
          try await Task.sleep(for: .milliseconds(5))
        }
        throw RefreshFailure()
      }
      return "fresh"
    }
    let errors = await withTaskGroup(of: NetworkError?.self) { group in
      for index in 0..<5 {
        group.addTask { await networkError(networking.request(Probe(.get("item/\(index)")))) }
      }
      return await group.reduce(into: []) { $0.append($1) }
    }
    #expect(errors.count == 5)
    for error in errors {
      #expect(error?.code == .requestRejected)
      #expect(error?.underlyingError is RefreshFailure)
      #expect(error?.message.contains("refresh") == true)
    }
    #expect(refreshes.value == 1)
    // The stale token was kept: the next 401 refreshes again, and this time it works.
    #expect(try await networking.request(Probe(.get("again"))).value.statusCode == 200)
    #expect(refreshes.value == 2)
  }

  @Test func clearAuthenticationRemovesTheRefreshForm() async throws {
    let transport = Self.makeGuardedTransport(valid: "fresh")
    let networking = Networking<Probe>(transport: .custom(transport))
    let refreshes = Box(0)
    networking.authenticate(bearerToken: "stale") {
      refreshes.update { $0 += 1 }
      return "fresh"
    }
    networking.clearAuthentication()
    let response = try await networking.request(Probe(.get("me"))).value
    #expect(response.statusCode == 401)
    #expect(refreshes.value == 0)
    #expect(transport.recordedRequests.map { $0.headerFields[.authorization] } == [nil])
  }

  @Test func otherFormsReplaceTheRefreshFormAndItReplacesThem() async throws {
    let transport = Self.makeGuardedTransport(valid: "fresh")
    let networking = Networking<Probe>(transport: .custom(transport))
    let refreshes = Box(0)
    let refresh: @Sendable () async throws -> String = {
      refreshes.update { $0 += 1 }
      return "fresh"
    }
    networking.authenticate(username: "malibu", password: "surf")
    networking.authenticate(bearerToken: "stale", refresh: refresh)
    #expect(try await networking.request(Probe(.get("a"))).value.statusCode == 200)
    networking.authenticate(bearerToken: "plain")
    #expect(try await networking.request(Probe(.get("b"))).value.statusCode == 401)
    networking.authenticate(bearerToken: "stale", refresh: refresh)
    networking.authenticate(authorizationHeader: "Custom")
    #expect(try await networking.request(Probe(.get("c"))).value.statusCode == 401)
    #expect(refreshes.value == 1)
    #expect(
      transport.recordedRequests.map { $0.headerFields[.authorization] } == [
        "Bearer stale", "Bearer fresh", "Bearer plain", "Custom",
      ]
    )
  }

  @Test func theTokenStaysWithTheBaseURLsOrigin() async throws {
    let transport = MockTransport(fallback: MockTransport.Reply(status: .unauthorized))
    let networking = Networking<Probe>(transport: .custom(transport))
    let refreshes = Box(0)
    networking.authenticate(bearerToken: "secret") {
      refreshes.update { $0 += 1 }
      return "fresher"
    }
    let response = try await networking.request(Probe(.get("http://127.0.0.2:8080/elsewhere"))).value
    #expect(response.statusCode == 401)
    #expect(refreshes.value == 0)
    #expect(transport.recordedRequests.map { $0.headerFields[.authorization] } == [nil])
  }
}
