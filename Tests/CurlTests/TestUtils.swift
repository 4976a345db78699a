import Foundation
import HTTPTypes
@_spi(Malibu) import MalibuCore
import MalibuTestSupport
import MalibuTransport
import Testing

@testable import MalibuCurl

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Every test of the target runs one after the other: some count the process's threads and file descriptors, and
/// all share two cores.
@Suite(.serialized) struct CurlTests {}

/// Runs `body` with a fresh server and transport, and shuts both down afterwards.
func withServer(
  configuration: CurlTransport.Configuration = .init(),
  _ body: (TestServer, CurlTransport) async throws -> Void
) async throws {
  let server = try TestServer(echo: .body)
  let transport = CurlTransport(configuration: configuration)
  defer {
    transport.shutdown()
    server.stop()
  }
  try await body(server, transport)
}

/// A request to `url`.
func request(_ method: HTTPRequest.Method, _ url: URL, headers: HTTPFields = [:]) -> HTTPRequest {
  HTTPRequest(method: method, url: url, headerFields: headers)
}

/// A GET request to `url`.
func request(_ url: URL, headers: HTTPFields = [:]) -> HTTPRequest {
  HTTPRequest(method: .get, url: url, headerFields: headers)
}

/// The `TransportError` code `body` throws, or `nil` when it does not throw one.
func errorCode(_ body: () async throws -> Void) async -> TransportError.Code? {
  do {
    try await body()
    return nil
  } catch let error as TransportError {
    return error.code
  } catch {
    Issue.record("not a TransportError: \(error)")
    return nil
  }
}

/// Checks that the transport still answers a plain request.
func expectServes(
  _ transport: CurlTransport,
  _ server: TestServer,
  sourceLocation: SourceLocation = #_sourceLocation
)
  async throws
{
  let (head, data, _) = try await transport.data(
    for: request(server.url("/bytes?size=1000")),
    body: nil,
    options: .init(),
    upTo: 1 << 20
  )
  #expect(head.status.code == 200, sourceLocation: sourceLocation)
  #expect(data == pattern(1000), sourceLocation: sourceLocation)
}

/// Threads of this process, and how many of them are curl loop threads.
func threadCounts() -> (all: Int, loops: Int) {
  let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
  let loops = tasks.filter { task in
    let name = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
    return name.hasPrefix("malibu-curl")
  }
  return (tasks.count, loops.count)
}

/// A value shared between a test and handlers running on other threads.
final class Box<Value: Sendable>: Sendable {
  private let lock: Locked<Value>
  init(_ value: Value) { lock = Locked(value) }
  var value: Value { lock.withLock { $0 } }
  func update<Result>(_ body: (inout Value) -> Result) -> Result { lock.withLock { body(&$0) } }
}

/// A port on 127.0.0.1 where nothing listens.
func closedPort() -> Int {
  let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  _ = withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
  }
  var length = socklen_t(MemoryLayout<sockaddr_in>.size)
  _ = withUnsafeMutablePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
  }
  close(fd)
  return Int(UInt16(bigEndian: address.sin_port))
}

/// A listening socket whose accept queue is full: a new connection attempt hangs in the handshake, which makes the
/// connect timeout observable without any address outside 127.0.0.0/8.
final class FullBacklog {
  let port: Int
  private let listener: Int32
  private let filler: Int32

  init() {
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    _ = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    listen(listener, 0)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
    }
    let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    _ = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(filler, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    self.listener = listener
    self.filler = filler
    port = Int(UInt16(bigEndian: address.sin_port))
  }

  deinit {
    close(filler)
    close(listener)
  }
}
