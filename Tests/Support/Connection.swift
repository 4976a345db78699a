import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

#if canImport(Darwin)
/// `send`'s flags: Darwin has no `MSG_NOSIGNAL`; the server sets `SO_NOSIGPIPE` on every accepted socket instead.
private let noSignal: Int32 = 0
#else
/// `send`'s flags: a write to a peer that is gone fails with `EPIPE` instead of raising SIGPIPE.
private let noSignal = Int32(MSG_NOSIGNAL)
#endif

/// One accepted connection of a ``TestServer``, confined to its thread: buffered reads, blocking writes.
final class Connection {
  let fd: Int32
  let server: TestServer
  private var buffer: [UInt8] = []
  private var closed = false
  /// Whether the request being answered is a HEAD (its response has no body).
  var isHead = false
  /// How many requests arrived on this connection so far, the one being answered included.
  private(set) var requestsOnConnection = 0

  init(fd: Int32, server: TestServer) {
    self.fd = fd
    self.server = server
  }

  func serve() {
    // A TLS ClientHello (record type 0x16) on this plain-HTTP server: hang up, as a plain server would on garbage.
    if buffer.isEmpty, fill(), buffer.first == 0x16 { return }
    while !closed, let request = readRequest() {
      server.record(request)
      requestsOnConnection += 1
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
    let request = RecordedRequest(
      method: String(parts[0]),
      target: String(parts[1]),
      headers: headers,
      body: Data(),
      bodyLength: 0,
      rawHead: Data(raw),
      wasChunked: false
    )
    if request.value("Expect")?.lowercased() == "100-continue" {
      write(Data("HTTP/1.1 100 Continue\r\n\r\n".utf8))
    }
    return readBody(of: request)
  }

  private func readBody(of head: RecordedRequest) -> RecordedRequest? {
    var request = head
    let keep = !request.target.hasPrefix("/sink")
    if request.value("Transfer-Encoding")?.lowercased().contains("chunked") == true {
      request.wasChunked = true
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
        if keep { request.body.append(contentsOf: chunk) }
      }
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
      let count = array[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, noSignal) }
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

  /// Makes closing the connection send a reset (RST) instead of a FIN.
  func resetOnClose() {
    var option = linger(l_onoff: 1, l_linger: 0)
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
  }

  /// Waits until the peer closes the connection or the server stops.
  func waitUntilGone() {
    while !isGone {
      var pollFD = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      if poll(&pollFD, 1, 50) > 0 {
        var discard = [UInt8](repeating: 0, count: 4096)
        if recv(fd, &discard, discard.count, 0) <= 0 { closed = true }
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
