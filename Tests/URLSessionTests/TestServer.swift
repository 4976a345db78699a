import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A request as the test server received it, byte for byte.
struct RecordedRequest: Sendable {
  var method: String
  var target: String
  /// Header lines in the order received: (name as sent, value).
  var headers: [Header]
  var body: Data
  /// How many body bytes arrived (for `/sink`, whose body is counted, not kept).
  var bodyLength: Int
  /// The request line and header lines exactly as received, up to and including the empty line.
  var rawHead: Data
  /// Whether the body came with `Transfer-Encoding: chunked`.
  var wasChunked: Bool

  struct Header: Sendable, Equatable {
    var name: String
    var value: String
  }

  /// The values of every header line with this name (case-insensitive).
  func values(_ name: String) -> [String] {
    headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
  }

  /// The value of the first header line with this name.
  func value(_ name: String) -> String? { values(name).first }
}

/// A tiny HTTP/1.1 server on 127.0.0.1 with scripted answers (see `TestServer+Routes.swift`), one thread per
/// connection, keep-alive. Every test starts its own and stops it.
final class TestServer: Sendable {
  struct Failure: Error, CustomStringConvertible {
    var description: String
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

  let port: Int
  private let listener: Int32
  private let state = Mutex(State())

  init() throws {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
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

  /// A URL on this server; `host` may be `localhost` to make a different origin.
  func url(_ path: String, host: String = "127.0.0.1") -> URL {
    URL(string: "http://\(host):\(port)\(path)")!
  }

  /// Everything received so far, in order.
  var requests: [RecordedRequest] { state.withLock { $0.requests } }
  /// How many connections were accepted.
  var acceptedConnections: Int { state.withLock { $0.accepted } }
  /// How many bytes arrived on any connection.
  var bytesReceived: Int { state.withLock { $0.bytesReceived } }
  /// How many connection threads are running.
  var activeThreads: Int { state.withLock { $0.threads } }

  var isStopped: Bool { state.withLock { $0.stopped } }

  /// Stops accepting and closes every connection; stalled handlers notice within 50 ms.
  func stop() {
    // Under the lock: a descriptor is closed (and its number possibly reused) only under the same lock.
    state.withLock { state in
      guard !state.stopped else { return }
      state.stopped = true
      if !state.listenerClosed { shutdown(listener, Int32(SHUT_RDWR)) }
      for fd in state.connections { shutdown(fd, Int32(SHUT_RDWR)) }
    }
  }

  /// Waits until every connection thread has ended (the client closed, or the server stopped).
  func waitForIdle() async {
    for _ in 0..<400 where activeThreads > 0 {
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

  fileprivate func record(_ request: RecordedRequest) {
    state.withLock { $0.requests.append(request) }
  }

  fileprivate func count(_ bytes: Int) {
    state.withLock { $0.bytesReceived += bytes }
  }
}

/// One connection, confined to its thread.
final class Connection {
  let fd: Int32
  let server: TestServer
  private var buffer: [UInt8] = []
  private var closed = false
  /// Whether the request being answered is a HEAD (its response has no body).
  var isHead = false

  fileprivate init(fd: Int32, server: TestServer) {
    self.fd = fd
    self.server = server
  }

  fileprivate func serve() {
    // A TLS ClientHello (record type 0x16) on this plain-HTTP server: hang up, as a plain server would on garbage.
    if buffer.isEmpty, fill(), buffer.first == 0x16 { return }
    while !closed, let request = readRequest() {
      server.record(request)
      isHead = request.method == "HEAD"
      if !respond(to: request) { return }
    }
  }

  /// Whether the peer is gone or the server stopped.
  var isGone: Bool { closed || server.isStopped }

  // MARK: Reading

  private func fill() -> Bool {
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while !server.isStopped {
      var pollFD = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      let ready = poll(&pollFD, 1, 50)
      if ready == 0 { continue }
      if ready < 0 {
        if errno == EINTR { continue }
        break
      }
      let count = recv(fd, &chunk, chunk.count, 0)
      if count > 0 {
        buffer.append(contentsOf: chunk[0..<count])
        server.count(count)
        return true
      }
      if count < 0 && errno == EINTR { continue }
      break
    }
    closed = true
    return false
  }

  private func readLine() -> [UInt8]? {
    var searchFrom = 0
    while true {
      if let index = buffer[searchFrom...].firstIndex(of: 0x0A) {
        let line = Array(buffer[..<(index + 1)])
        buffer.removeFirst(index + 1)
        return line
      }
      searchFrom = buffer.count
      guard fill() else { return nil }
    }
  }

  private func read(count: Int) -> [UInt8]? {
    while buffer.count < count {
      guard fill() else { return nil }
    }
    let bytes = Array(buffer[..<count])
    buffer.removeFirst(count)
    return bytes
  }

  private func readRequest() -> RecordedRequest? {
    guard let first = readLine() else { return nil }
    var raw = first
    let parts = String(decoding: first, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
      .split(separator: " ", omittingEmptySubsequences: false)
    guard parts.count == 3 else { return nil }
    var headers: [RecordedRequest.Header] = []
    while true {
      guard let line = readLine() else { return nil }
      raw += line
      let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: CharacterSet(charactersIn: "\r\n"))
      if text.isEmpty { break }
      guard let colon = text.firstIndex(of: ":") else { continue }
      headers.append(
        .init(
          name: String(text[..<colon]),
          value: text[text.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        )
      )
    }
    var request = RecordedRequest(
      method: String(parts[0]),
      target: String(parts[1]),
      headers: headers,
      body: Data(),
      bodyLength: 0,
      rawHead: Data(raw),
      wasChunked: false
    )
    let keep = !request.target.hasPrefix("/sink")
    if request.value("Transfer-Encoding")?.lowercased().contains("chunked") == true {
      request.wasChunked = true
      var body = Data()
      while true {
        guard let sizeLine = readLine(),
          let size = Int(
            String(decoding: sizeLine, as: UTF8.self).split(separator: ";")[0]
              .trimmingCharacters(in: .whitespacesAndNewlines),
            radix: 16
          )
        else { return nil }
        if size == 0 {
          while let trailer = readLine(), trailer.count > 2 {}
          break
        }
        guard let chunk = read(count: size), readLine() != nil else { return nil }
        request.bodyLength += size
        if keep { body.append(contentsOf: chunk) }
      }
      request.body = body
    } else if let length = request.value("Content-Length").flatMap({ Int($0) }), length > 0 {
      var remaining = length
      while remaining > 0 {
        let piece = min(remaining, 1 << 20)
        guard let bytes = read(count: piece) else { return nil }
        if keep { request.body.append(contentsOf: bytes) }
        remaining -= piece
      }
      request.bodyLength = length
    }
    return request
  }

  // MARK: Writing

  /// Writes all of `bytes`; `false` when the peer is gone.
  @discardableResult
  func write(_ bytes: some DataProtocol) -> Bool {
    let array = [UInt8](bytes)
    var offset = 0
    while offset < array.count {
      let count = array[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
      if count <= 0 {
        if count < 0 && errno == EINTR { continue }
        closed = true
        return false
      }
      offset += count
    }
    return true
  }

  /// Writes a status line and header fields.
  @discardableResult
  func writeHead(_ status: Int, _ headers: [(String, String)]) -> Bool {
    var text = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
    for (name, value) in headers { text += "\(name): \(value)\r\n" }
    text += "\r\n"
    return write(Data(text.utf8))
  }

  /// Waits until the peer closes the connection or the server stops.
  func waitUntilGone() {
    while !isGone {
      var pollFD = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      if poll(&pollFD, 1, 50) > 0 {
        var byte: UInt8 = 0
        if recv(fd, &byte, 1, Int32(MSG_PEEK)) <= 0 { closed = true }
      }
    }
  }

  /// Sleeps up to `milliseconds`, returning early (with `false`) when the peer or the server is gone.
  func pause(milliseconds: Int) -> Bool {
    var remaining = milliseconds
    while remaining > 0 {
      if isGone { return false }
      let step = min(remaining, 20)
      usleep(UInt32(step * 1000))
      remaining -= step
    }
    return !isGone
  }

  private static func reason(_ status: Int) -> String {
    switch status {
    case 200: return "OK"
    case 301: return "Moved Permanently"
    case 302: return "Found"
    case 303: return "See Other"
    case 307: return "Temporary Redirect"
    case 308: return "Permanent Redirect"
    case 401: return "Unauthorized"
    case 404: return "Not Found"
    default: return "Status"
    }
  }
}
