public import Foundation
@_spi(Malibu) import MalibuCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 with scripted answers (see `TestServer+Routes.swift`): plain POSIX sockets,
/// one thread per connection, keep-alive (so connection reuse can be observed). Every test starts its own and stops
/// it.
public final class TestServer: Sendable {
  /// What `/echo` answers.
  public enum EchoStyle: Sendable {
    /// The request head as received, then its body.
    case headAndBody
    /// The request body alone.
    case body
  }

  /// Why the server could not start.
  public struct Failure: Error, CustomStringConvertible {
    /// What went wrong.
    public var description: String
  }

  private struct State {
    var requests: [RecordedRequest] = []
    var connections: Set<Int32> = []
    var accepted = 0
    var bytesReceived = 0
    var stopped = false
    var listenerClosed = false
    var threads = 0
  }

  /// The port the server listens on.
  public let port: Int
  /// What `/echo` answers.
  public let echo: EchoStyle
  private let listener: Int32
  private let state = Locked(State())

  /// Starts a server on a free loopback port.
  /// - Parameter echo: what `/echo` answers.
  /// - Throws: ``Failure`` when no socket can be bound.
  public init(echo: EchoStyle = .headAndBody) throws {
    self.echo = echo
    #if canImport(Glibc)
    let stream = Int32(SOCK_STREAM.rawValue)  // glibc's SOCK_STREAM is an enum case; musl's and Darwin's an Int32
    #else
    let stream = SOCK_STREAM
    #endif
    let fd = socket(AF_INET, stream, 0)
    guard fd >= 0 else { throw Failure(description: "socket() failed: \(errno)") }
    var yes: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0, listen(fd, 128) == 0 else {
      close(fd)
      throw Failure(description: "bind/listen failed: \(errno)")
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    listener = fd
    port = Int(UInt16(bigEndian: address.sin_port))
    Thread.detachNewThread { [self] in acceptLoop() }
  }

  deinit {
    stop()
  }

  /// A URL on this server.
  /// - Parameters:
  ///   - path: the path and query.
  ///   - host: `127.0.0.1`, or `localhost` to make a different origin.
  /// - Returns: `http://<host>:<port><path>`.
  public func url(_ path: String, host: String = "127.0.0.1") -> URL {
    URL(string: "http://\(host):\(port)\(path)")!
  }

  /// Everything received so far, in order.
  public var requests: [RecordedRequest] { state.withLock { $0.requests } }
  /// The last request received.
  public var lastRequest: RecordedRequest? { state.withLock { $0.requests.last } }
  /// How many connections were accepted.
  public var acceptedConnections: Int { state.withLock { $0.accepted } }
  /// How many connections are open.
  public var openConnections: Int { state.withLock { $0.connections.count } }
  /// How many bytes arrived on any connection.
  public var bytesReceived: Int { state.withLock { $0.bytesReceived } }
  /// How many connection threads are running.
  public var activeThreads: Int { state.withLock { $0.threads } }
  /// Whether ``stop()`` was called.
  public var isStopped: Bool { state.withLock { $0.stopped } }

  /// Stops accepting and closes every connection; stalled handlers notice within 50 ms.
  public func stop() {
    // Under the lock: a descriptor is closed (and its number possibly reused) only under the same lock.
    state.withLock { state in
      guard !state.stopped else { return }
      state.stopped = true
      if !state.listenerClosed { shutdown(listener, Int32(SHUT_RDWR)) }
      for fd in state.connections { shutdown(fd, Int32(SHUT_RDWR)) }
    }
  }

  /// Waits (up to 5 s) until every connection has ended (the client closed, or the server stopped).
  public func waitForIdle() async {
    for _ in 0..<1000 where activeThreads > 0 {
      try? await Task.sleep(for: .milliseconds(5))
    }
  }

  private func acceptLoop() {
    defer {
      state.withLock { state in
        state.listenerClosed = true
        close(listener)
      }
    }
    while !isStopped {
      let fd = accept(listener, nil, nil)
      if fd < 0 {
        if errno == EINTR { continue }
        return
      }
      var one: Int32 = 1
      setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
      #if canImport(Darwin)
      // Darwin has no MSG_NOSIGNAL: a write to a peer that is gone must not raise SIGPIPE either.
      setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
      #endif
      let admitted = state.withLock { state -> Bool in
        guard !state.stopped else { return false }
        state.connections.insert(fd)
        state.accepted += 1
        state.threads += 1
        return true
      }
      guard admitted else {
        close(fd)
        return
      }
      Thread.detachNewThread { [self] in
        let connection = Connection(fd: fd, server: self)
        connection.serve()
        state.withLock { state in
          state.connections.remove(fd)
          state.threads -= 1
          close(fd)
        }
      }
    }
  }

  func record(_ request: RecordedRequest) {
    state.withLock { $0.requests.append(request) }
  }

  func count(_ bytes: Int) {
    state.withLock { $0.bytesReceived += bytes }
  }
}
