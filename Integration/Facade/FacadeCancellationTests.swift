import Foundation
import Malibu
import Testing

/// Cancelling a request through the facade while it waits for a slow endpoint.
@Suite("Facade: cancellation")
struct FacadeCancellationTests {
  @Test(arguments: Backend.allCases)
  func cancelAllRequestsEndsASlowRequestPromptly(_ backend: Backend) async throws {
    try await FacadeServer.start()
    let recorder = RecordingTransport(backend.transport)
    let networking = Networking<Httpbin>(transport: .custom(recorder))
    let promise = networking.request(.delay(5))
    for _ in 0..<500 where recorder.startedCount == 0 {
      try await Task.sleep(for: .milliseconds(10))
    }
    #expect(recorder.startedCount == 1)
    try await Task.sleep(for: .milliseconds(200))  // well into the exchange: httpbin holds it for 5 s
    let started = ContinuousClock.now
    networking.cancelAllRequests()
    let error = try #require(await rejection(promise))
    #expect(error.code == .cancelled)
    #expect(error.isCancellation)
    // The transfer itself stops too, long before httpbin's 5 s are over.
    for _ in 0..<500 where recorder.all.isEmpty {
      try await Task.sleep(for: .milliseconds(10))
    }
    #expect(ContinuousClock.now - started < .seconds(3))
    let record = try #require(recorder.all.first)
    #expect(record.status == nil)
    #expect((record.error as? TransportError)?.code == .cancelled)
    #expect(try await networking.request(.query([:])).validate().value.statusCode == 200)
  }

  @Test(arguments: Backend.allCases)
  func cancellingTheAwaitingTaskEndsTheRequest(_ backend: Backend) async throws {
    try await FacadeServer.start()
    let recorder = RecordingTransport(backend.transport)
    let networking = Networking<Httpbin>(transport: .custom(recorder))
    let task = Task { try await networking.request(.delay(5)).value }
    for _ in 0..<500 where recorder.startedCount == 0 {
      try await Task.sleep(for: .milliseconds(10))
    }
    try await Task.sleep(for: .milliseconds(200))
    let started = ContinuousClock.now
    task.cancel()
    let result = await task.result
    guard case .failure(let error) = result else {
      Issue.record("expected a cancellation, got \(result)")
      return
    }
    #expect(isCancellationError(error))
    for _ in 0..<500 where recorder.all.isEmpty {
      try await Task.sleep(for: .milliseconds(10))
    }
    #expect(ContinuousClock.now - started < .seconds(3))
    #expect((recorder.all.first?.error as? TransportError)?.code == .cancelled)
    #expect(try await networking.request(.query([:])).validate().value.statusCode == 200)
  }
}
