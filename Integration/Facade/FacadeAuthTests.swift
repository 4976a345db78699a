import Foundation
import Malibu
@_spi(Malibu) import MalibuCore
import Testing

struct FacadeRefreshFailure: Error {}

/// Authentication through the facade against httpbin's `/basic-auth` and `/bearer`, token refresh included.
@Suite("Facade: authentication")
struct FacadeAuthTests {
  @Test(arguments: Backend.allCases)
  func basicAuthentication(_ backend: Backend) async throws {
    try await FacadeServer.start()
    let networking = Networking<Httpbin>(transport: backend.kind)
    let anonymous = try await networking.request(.basicAuth(user: "surfer", password: "s3cret")).value
    #expect(anonymous.statusCode == 401)
    networking.authenticate(username: "surfer", password: "s3cret")
    let echo = try await networking.request(.basicAuth(user: "surfer", password: "s3cret")).validate()
      .toJsonDictionary().value
    #expect(echo["authenticated"] as? Bool == true)
    #expect(echo["user"] as? String == "surfer")
    networking.authenticate(username: "surfer", password: "wrong")
    let wrong = try #require(
      await rejection(networking.request(.basicAuth(user: "surfer", password: "s3cret")).validate())
    )
    #expect(wrong.response?.statusCode == 401)
  }

  @Test(arguments: Backend.allCases)
  func bearerAuthenticationAndClearing(_ backend: Backend) async throws {
    try await FacadeServer.start()
    let networking = Networking<Httpbin>(transport: backend.kind)
    networking.authenticate(bearerToken: "wave-token")
    let echo = try await networking.request(.bearer).validate().toJsonDictionary().value
    #expect(echo["authenticated"] as? Bool == true)
    #expect(echo["token"] as? String == "wave-token")
    networking.clearAuthentication()
    let error = try #require(await rejection(networking.request(.bearer).validate()))
    #expect(error.code == .unacceptableStatusCode)
    #expect(error.response?.statusCode == 401)
  }

  @Test(arguments: Backend.allCases)
  func twentyConcurrent401sRefreshExactlyOnce(_ backend: Backend) async throws {
    try await FacadeServer.start()
    let recorder = RecordingTransport(backend.transport)
    let networking = Networking<Httpbin>(transport: .custom(recorder))
    let refreshes = Locked(0)
    // No token at first: httpbin's /bearer answers 401 to all 20. The refresh waits until the 20 401s came back
    // (or gives up waiting after a while), so every request is one that needs the new token.
    networking.authenticate(bearerToken: nil) {
      refreshes.withLock { $0 += 1 }
      for _ in 0..<1000 where recorder.statuses.filter({ $0 == 401 }).count < 20 {
        try await Task.sleep(for: .milliseconds(10))
      }
      return "fresh-token"
    }
    let echoes = try await withThrowingTaskGroup(of: [String: any Sendable].self) { group in
      for _ in 0..<20 {
        group.addTask { try await networking.request(.bearer).validate().toJsonDictionary().value }
      }
      return try await group.reduce(into: []) { $0.append($1) }
    }
    #expect(echoes.count == 20)
    #expect(echoes.allSatisfy { $0["token"] as? String == "fresh-token" })
    #expect(refreshes.withLock { $0 } == 1)
    let records = recorder.all
    #expect(records.filter { $0.status == 401 }.count == 20)
    #expect(records.filter { $0.status == 200 }.count == 20)
    #expect(records.count == 40)
    #expect(records.filter { $0.status == 401 }.allSatisfy { $0.request.headerFields[.authorization] == nil })
    #expect(
      records.filter { $0.status == 200 }.allSatisfy { $0.request.headerFields[.authorization] == "Bearer fresh-token" }
    )
    // The new token is used from now on, without another refresh.
    #expect(try await networking.request(.bearer).validate().value.statusCode == 200)
    #expect(refreshes.withLock { $0 } == 1)
  }

  @Test(arguments: Backend.allCases)
  func aRefreshThatThrowsFailsTheRequestsAndTheNetworkingKeepsWorking(_ backend: Backend) async throws {
    try await FacadeServer.start()
    let recorder = RecordingTransport(backend.transport)
    let networking = Networking<Httpbin>(transport: .custom(recorder))
    let refreshes = Locked(0)
    networking.authenticate(bearerToken: nil) {
      let call = refreshes.withLock { count in
        count += 1
        return count
      }
      guard call > 1 else {
        for _ in 0..<1000 where recorder.statuses.count < 5 {
          try await Task.sleep(for: .milliseconds(10))
        }
        throw FacadeRefreshFailure()
      }
      return "second-try"
    }
    let errors = await withTaskGroup(of: NetworkError?.self) { group in
      for _ in 0..<5 {
        group.addTask { await rejection(networking.request(.bearer)) }
      }
      return await group.reduce(into: []) { $0.append($1) }
    }
    #expect(errors.count == 5)
    for error in errors {
      #expect(error?.code == .requestRejected)
      #expect(error?.underlyingError is FacadeRefreshFailure)
      #expect(error?.message.contains("refresh") == true)
    }
    #expect(refreshes.withLock { $0 } == 1)
    // The next 401 refreshes again; this time it works.
    let echo = try await networking.request(.bearer).validate().toJsonDictionary().value
    #expect(echo["token"] as? String == "second-try")
    #expect(refreshes.withLock { $0 } == 2)
    // And a request that needs no token works too.
    #expect(try await networking.request(.query([:])).validate().value.statusCode == 200)
  }

  @Test(arguments: Backend.allCases)
  func credentialsNeverGoToAnotherOrigin(_ backend: Backend) async throws {
    let base = try await FacadeServer.start()
    let recorder = RecordingTransport(backend.transport)
    let networking = Networking<HttpbinProbe>(transport: .custom(recorder))
    networking.authenticate(bearerToken: "origin-bound")
    // The same server under another name is another origin.
    let otherOrigin = base.replacingOccurrences(of: "127.0.0.1", with: "localhost") + "bearer"
    let response = try await networking.request(HttpbinProbe(.get(otherOrigin))).value
    #expect(response.statusCode == 401)
    #expect(recorder.all.first?.request.headerFields[.authorization] == nil)
  }
}
