import Foundation
import MalibuCore
import MalibuGzip

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A request as the test server read it.
struct RecordedRequest: Sendable {
  var method: String
  var target: String
  var version: String
  /// Header fields in the order received, names as sent.
  var headers: [(name: String, value: String)]
  var body: Data
  /// Whether the body came chunked.
  var chunked: Bool

  var path: String { String(target.split(separator: "?", maxSplits: 1).first ?? "") }

  func header(_ name: String) -> String? {
    headers.first { $0.name.lowercased() == name.lowercased() }?.value
  }

  func headers(named name: String) -> [String] {
    headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
  }
}

/// A tiny HTTP/1.1 server on 127.0.0.1 with plain POSIX sockets: an accept thread and one thread per connection,
/// answering scripted routes (see `respond`). Keep-alive is supported, so connection reuse can be observed.
final class TestServer: Sendable {
  let port: Int
  private let listener: Int32
  private struct State {
    var requests: [RecordedRequest] = []
    var connections: Set<Int32> = []
    var accepted = 0
    var stopped = false
  }
  private let state = Locked(State())

  init() throws {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw POSIXError(.EIO) }
    var yes: Int32 = 1
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0, listen(fd, 128) == 0 else {
      close(fd)
      throw POSIXError(.EADDRINUSE)
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    listener = fd
    port = Int(UInt16(bigEndian: address.sin_port))
    let thread = Thread { [self] in acceptLoop() }
    thread.start()
  }

  /// `http://127.0.0.1:<port><path>`.
  func url(_ path: String, host: String = "127.0.0.1") -> URL {
    URL(string: "http://\(host):\(port)\(path)")!
  }

  var requests: [RecordedRequest] { state.withLock { $0.requests } }
  var lastRequest: RecordedRequest? { state.withLock { $0.requests.last } }
  var acceptedConnections: Int { state.withLock { $0.accepted } }
  var openConnections: Int { state.withLock { $0.connections.count } }

  /// Closes the listener and every connection; the threads end.
  func stop() {
    let connections = state.withLock { state in
      state.stopped = true
      return state.connections
    }
    shutdown(listener, Int32(SHUT_RDWR))
    for fd in connections { shutdown(fd, Int32(SHUT_RDWR)) }
  }

  /// Waits (up to 5 s) until no connection is open.
  func waitUntilIdle() async {
    for _ in 0..<500 where openConnections > 0 {
      try? await Task.sleep(for: .milliseconds(10))
    }
  }

  private func acceptLoop() {
    while true {
      let fd = accept(listener, nil, nil)
      if fd < 0 {
        if errno == EINTR { continue }
        break
      }
      let proceed = state.withLock { state in
        guard !state.stopped else { return false }
        state.connections.insert(fd)
        state.accepted += 1
        return true
      }
      guard proceed else {
        close(fd)
        break
      }
      var yes: Int32 = 1
      setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
      Thread { [self] in serve(fd) }.start()
    }
    close(listener)
  }

  private func serve(_ fd: Int32) {
    let connection = Connection(fd: fd)
    while let request = connection.readRequest() {
      state.withLock { $0.requests.append(request) }
      if !Routes.respond(to: request, on: connection, server: self) { break }
    }
    state.withLock { _ = $0.connections.remove(fd) }
    close(fd)
  }
}

/// One accepted socket: buffered reads and blocking writes.
final class Connection {
  let fd: Int32
  private var buffer: [UInt8] = []

  init(fd: Int32) {
    self.fd = fd
  }

  /// Writes everything; `false` when the peer is gone.
  @discardableResult
  func write(_ bytes: some DataProtocol) -> Bool {
    var data = Data(bytes)
    return data.withUnsafeMutableBytes { raw in
      var offset = 0
      while offset < raw.count {
        let sent = send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
        if sent < 0 && errno == EINTR { continue }
        if sent <= 0 { return false }
        offset += sent
      }
      return true
    }
  }

  @discardableResult
  func write(_ text: String) -> Bool {
    write(Data(text.utf8))
  }

  /// Blocks until the peer closes the connection (or the server stops).
  func waitForClose() {
    var byte: UInt8 = 0
    while recv(fd, &byte, 1, 0) > 0 {}
  }

  private func fill() -> Bool {
    var chunk = [UInt8](repeating: 0, count: 64 << 10)
    while true {
      let count = recv(fd, &chunk, chunk.count, 0)
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { return false }
      buffer.append(contentsOf: chunk[0..<count])
      return true
    }
  }

  private func readLine() -> String? {
    while true {
      if let index = buffer.firstIndex(of: 0x0A) {
        var line = Array(buffer[0..<index])
        buffer.removeFirst(index + 1)
        if line.last == 0x0D { line.removeLast() }
        return String(decoding: line, as: UTF8.self)
      }
      guard fill() else { return nil }
    }
  }

  private func readBytes(_ count: Int) -> [UInt8]? {
    while buffer.count < count {
      guard fill() else { return nil }
    }
    let bytes = Array(buffer[0..<count])
    buffer.removeFirst(count)
    return bytes
  }

  func readRequest() -> RecordedRequest? {
    guard let requestLine = readLine() else { return nil }
    let parts = requestLine.split(separator: " ")
    guard parts.count == 3 else { return nil }
    var headers: [(name: String, value: String)] = []
    while let line = readLine() {
      if line.isEmpty { break }
      guard let colon = line.firstIndex(of: ":") else { continue }
      headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
    }
    var request = RecordedRequest(
      method: String(parts[0]),
      target: String(parts[1]),
      version: String(parts[2]),
      headers: headers,
      body: Data(),
      chunked: false
    )
    if request.header("Expect")?.lowercased() == "100-continue" {
      write("HTTP/1.1 100 Continue\r\n\r\n")
    }
    if request.header("Transfer-Encoding")?.lowercased() == "chunked" {
      request.chunked = true
      while let sizeLine = readLine(), let size = Int(sizeLine.split(separator: ";")[0], radix: 16) {
        if size == 0 {
          while let trailer = readLine(), !trailer.isEmpty {}
          break
        }
        guard let bytes = readBytes(size) else { return nil }
        request.body.append(contentsOf: bytes)
        _ = readLine()
      }
    } else if let length = request.header("Content-Length").flatMap({ Int($0) }), length > 0 {
      guard let bytes = readBytes(length) else { return nil }
      request.body = Data(bytes)
    }
    return request
  }
}
