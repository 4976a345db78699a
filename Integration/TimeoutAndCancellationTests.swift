import Foundation
import HTTPTypes
@_spi(Malibu) import MalibuCore
import MalibuTransport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Timeouts by kind and cancellation, each followed by a request that works.
@Suite("Timeouts and cancellation", .serialized)
struct TimeoutAndCancellationTests {
  @Test(arguments: Backend.allCases)
  func idleTimeout(_ backend: Backend) async throws {
    var options = TransferOptions()
    options.timeouts = Timeouts(connect: .seconds(5), idle: .milliseconds(500), total: nil)
    // One byte now, the next two seconds later: the silence is longer than the idle timeout.
    await expectTransportError(.idleTimeout) {
      try await backend.exchange(Servers.httpbin("/drip?duration=4&numbytes=2&delay=0"), options: options)
    }
    await expectTransportError(.idleTimeout) {
      try await backend.exchange(Servers.httpbin("/delay/3"), options: options)
    }
    #expect(try await backend.exchange(Servers.httpbin("/get"), options: options).status == 200)
  }

  @Test(arguments: Backend.allCases)
  func totalTimeout(_ backend: Backend) async throws {
    var options = TransferOptions()
    options.timeouts = Timeouts(connect: .seconds(5), idle: .seconds(5), total: .seconds(1))
    // A byte every 100 ms for 3 s: never idle, but longer than the total timeout.
    let started = ContinuousClock.now
    await expectTransportError(.totalTimeout) {
      try await backend.exchange(Servers.httpbin("/drip?duration=3&numbytes=30&delay=0"), options: options)
    }
    #expect(ContinuousClock.now - started < .seconds(3))
    #expect(try await backend.exchange(Servers.httpbin("/get"), options: options).status == 200)
  }

  @Test(arguments: Backend.allCases)
  func connectTimeout(_ backend: Backend) async throws {
    let listener = try FullBacklogListener()
    defer { listener.close() }
    var options = TransferOptions()
    options.timeouts = Timeouts(connect: .milliseconds(500), idle: .seconds(10), total: .seconds(10))
    await expectTransportError(.connectTimeout) {
      try await backend.exchange(URL(string: "http://127.0.0.1:\(listener.port)/")!, options: options)
    }
  }

  @Test(arguments: Backend.allCases)
  func cancellationInTheMiddleOfALargeDownload(_ backend: Backend) async throws {
    let url = try await Servers.nginx("/identity/100m.bin")
    let received = Locked(0)
    let task = Task {
      let response = try await backend.transport.send(
        HTTPRequest(method: .get, url: url),
        body: nil,
        options: TransferOptions()
      )
      for try await chunk in response.body {
        received.withLock { $0 += chunk.count }
      }
    }
    while received.withLock({ $0 }) < 1 << 20 { try await Task.sleep(for: .milliseconds(2)) }
    let cancelled = ContinuousClock.now
    task.cancel()
    await expectTransportError(.cancelled) { try await task.value }
    #expect(ContinuousClock.now - cancelled < .seconds(1))
    #expect(received.withLock { $0 } < 100 << 20)
    #expect(try await backend.exchange(Servers.nginx("/1k.bin")).data == StaticContent.data(of: StaticContent.small))
  }

  @Test(arguments: Backend.allCases)
  func cancellationBeforeTheResponseHead(_ backend: Backend) async throws {
    let url = try await Servers.httpbin("/delay/5")
    let task = Task { try await backend.exchange(.get, url) }
    try await Task.sleep(for: .milliseconds(200))
    let cancelled = ContinuousClock.now
    task.cancel()
    await expectTransportError(.cancelled) { try await task.value }
    #expect(ContinuousClock.now - cancelled < .seconds(1))
    #expect(try await backend.exchange(Servers.httpbin("/get")).status == 200)
  }
}

/// A loopback listener whose accept queue is full and never drained: new connections hang in SYN_SENT, so a client's
/// connect timeout fires — without any address outside 127.0.0.0/8.
final class FullBacklogListener: Sendable {
  let port: UInt16
  private let descriptors: [Int32]

  init() throws {
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
    }
    try #require(bound == 0)
    try #require(listen(listener, 0) == 0)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
    }
    let port = UInt16(bigEndian: address.sin_port)
    // Fill the accept queue: with a backlog of 0 the kernel accepts one or two completed connections, then drops
    // further SYNs.
    var fillers: [Int32] = []
    for _ in 0..<4 {
      let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
      _ = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, length) }
      }
      fillers.append(filler)
    }
    usleep(100_000)
    self.port = port
    descriptors = [listener] + fillers
  }

  func close() {
    for descriptor in descriptors { _ = Glibc.close(descriptor) }
  }
}
