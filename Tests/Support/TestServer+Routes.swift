public import Foundation
@_spi(Malibu) import MalibuCore
import MalibuGzip

/// The byte at `index` of every generated body: `index % 251`.
/// - Parameter index: a position in the body.
/// - Returns: the byte there.
public func patternByte(at index: Int) -> UInt8 { UInt8(truncatingIfNeeded: index % 251) }

/// A generated body of `count` bytes (see ``patternByte(at:)``), the one the routes send.
/// - Parameter count: its length.
/// - Returns: the bytes.
public func pattern(_ count: Int) -> Data {
  pattern(from: 0, count: count)
}

/// `count` bytes of the generated body, from `start` on.
/// - Parameters:
///   - start: the position of the first byte.
///   - count: how many bytes.
/// - Returns: the bytes.
public func pattern(from start: Int, count: Int) -> Data {
  Data((start..<start + count).map { patternByte(at: $0) })
}

/// ``pattern(_:)`` compressed with gzip, exactly as `/gzip` sends it.
/// - Parameter count: the uncompressed length.
/// - Returns: the gzip stream.
public func gzipPattern(_ count: Int) -> Data {
  try! Gzip.deflate(pattern(count))
}

/// `mib` MiB of zeros, gzip-compressed at the best level (about 1 KiB per MiB), as `/gzip-bomb` sends it; built once
/// per size.
/// - Parameter mib: the decoded size in MiB.
/// - Returns: the gzip stream.
public func gzipBomb(mib: Int) -> Data {
  if let built = bombs.withLock({ $0[mib] }) { return built }
  let deflater = Deflater(format: .gzip, level: .best)
  let zeros = Data(count: 1 << 20)
  var bomb = Data()
  for _ in 0..<mib { bomb.append(try! deflater.deflate(zeros)) }
  bomb.append(try! deflater.finish())
  bombs.withLock { $0[mib] = bomb }
  return bomb
}

private let bombs = Locked<[Int: Data]>([:])

extension Connection {
  /// Answers one request; `false` closes the connection.
  ///
  /// Routes (query parameters in brackets; `size` is 1000 unless given):
  /// - `/echo`: the request head as received, then its body (or the body alone, see ``TestServer/EchoStyle``).
  /// - `/sink`: the number of body bytes received (the body is counted, not kept).
  /// - `/bytes[size]`, `/chunked[size, chunk]`, `/big[size]`: the pattern, with a length, chunked, or large.
  /// - `/gzip[size]`, `/gzip-chunked[size]`, `/deflate[size]`: the pattern, encoded.
  /// - `/gzip-zeros[size]`: zeros, gzip-encoded (a small body that decodes to a lot).
  /// - `/gzip-truncated[size]`: a gzip stream cut in the middle, with a matching Content-Length.
  /// - `/not-gzip`: `Content-Encoding: gzip` on plain text.
  /// - `/coding[name]`: plain text labelled with an arbitrary content coding.
  /// - `/drip[chunks, size, delay]`: a known length of the pattern, sent piece by piece, `delay` ms apart.
  /// - `/stall-head`, `/stall-body[size, sent]`: no response, or a head and `sent` bytes, then silence.
  /// - `/stall-chunked[sent]`: a chunked head and one chunk of `sent` bytes, then silence.
  /// - `/close-mid[size, sent]`, `/close-mid-chunked`, `/close-no-response`: the connection closed early.
  /// - `/redirect[status, to, body]`, `/chain/N` or `/chain[n]`, `/loop`: redirects.
  /// - `/status/N` or `/status[status]`, `/set-cookie`, `/auth`.
  /// - `/continue`: a 103 interim response before the final one.
  /// - `/slow-head[delay, stall]`: a head whose header line trickles in one byte every `delay` ms (300), then
  ///   `ok`; with `stall`, silence after its first bytes.
  /// - `/continue-100`: a `100 Continue` interim response before the final one.
  /// - `/garbage-status`, `/not-http`, `/bad-content-length`, `/bad-chunked`: answers that break HTTP, then a close.
  /// - `/reset-reused[size]`: on a fresh connection, the request body echoed (or `size` pattern bytes), the connection
  ///   kept; any later request on that connection is read whole and answered with a reset (RST), no response.
  /// - `/gzip-bomb[mib]`: ``gzipBomb(mib:)`` (1024 unless given), `Content-Encoding: gzip`.
  /// - `/flaky[fail, status, retry-after, reset]`: the first `fail` requests to `/flaky` on this server (1 unless
  ///   given) fail, with `status` (503) and, when given, `Retry-After: <retry-after>`, or with `reset` by a reset
  ///   (RST) before any answer; later ones get `200 ok`.
  func respond(to request: RecordedRequest) -> Bool {
    let components = URLComponents(string: request.target)
    let path = components?.path ?? request.target
    var query: [String: String] = [:]
    for item in components?.queryItems ?? [] { query[item.name] = item.value ?? "" }
    let size = query["size"].flatMap { Int($0) } ?? 1000

    switch path {
    case "/echo":
      var body = server.echo == .headAndBody ? request.rawHead : Data()
      body.append(request.body)
      return send(200, [("Content-Type", "application/octet-stream")], body)
    case "/sink":
      return send(200, [], Data(String(request.bodyLength).utf8))
    case "/bytes":
      return send(200, [("Content-Type", "application/octet-stream")], pattern(size))
    case "/chunked":
      return sendChunked(pattern(size), chunk: query["chunk"].flatMap { Int($0) } ?? 100)
    case "/gzip":
      return send(200, [("Content-Encoding", "gzip")], gzipPattern(size))
    case "/gzip-chunked":
      return sendChunked(gzipPattern(size), chunk: 97, extra: [("Content-Encoding", "gzip")])
    case "/deflate":
      return send(200, [("Content-Encoding", "deflate")], try! Gzip.deflate(pattern(size), format: .zlib))
    case "/gzip-zeros":
      return send(200, [("Content-Encoding", "gzip")], try! Gzip.deflate(Data(count: size)))
    case "/gzip-truncated":
      let full = try! Gzip.deflate(pattern(size), level: .none)
      return send(200, [("Content-Encoding", "gzip")], full.prefix(full.count / 2))
    case "/not-gzip":
      return send(200, [("Content-Encoding", "gzip")], Data(String(repeating: "not gzip at all ", count: 20).utf8))
    case "/coding":
      return send(200, [("Content-Encoding", query["name"] ?? "compress")], Data("plain".utf8))
    case "/drip":
      let chunks = query["chunks"].flatMap { Int($0) } ?? 5
      return drip(chunks: chunks, size: size, delay: query["delay"].flatMap { Int($0) } ?? 50)
    case "/stall-head":
      waitUntilGone()
      return false
    case "/stall-body":
      writeHead(200, [("Content-Length", String(size))])
      write(pattern(min(size, query["sent"].flatMap { Int($0) } ?? 10)))
      waitUntilGone()
      return false
    case "/stall-chunked":
      let sent = query["sent"].flatMap { Int($0) } ?? 10
      writeHead(200, [("Transfer-Encoding", "chunked")])
      write(Data("\(String(sent, radix: 16))\r\n".utf8) + pattern(sent) + Data("\r\n".utf8))
      waitUntilGone()
      return false
    case "/close-mid":
      writeHead(200, [("Content-Length", String(size))])
      write(pattern(min(size, query["sent"].flatMap { Int($0) } ?? 100)))
      return false
    case "/close-mid-chunked":
      writeHead(200, [("Transfer-Encoding", "chunked")])
      write(Data("64\r\n".utf8) + pattern(100) + Data("\r\n".utf8))
      return false
    case "/close-no-response":
      return false
    case "/redirect":
      let status = query["status"].flatMap { Int($0) } ?? 302
      return send(status, [("Location", query["to"] ?? "/echo")], Data((query["body"] ?? "redirecting").utf8))
    case "/chain":
      let remaining = query["n"].flatMap { Int($0) } ?? 0
      if remaining <= 0 { return send(200, [], Data("done".utf8)) }
      return send(302, [("Location", "/chain?n=\(remaining - 1)")], Data())
    case "/loop":
      return send(302, [("Location", "/loop")], Data())
    case "/status":
      return sendStatus(query["status"].flatMap { Int($0) } ?? 200)
    case "/set-cookie":
      return send(200, [("Set-Cookie", "a=1; Path=/"), ("Set-Cookie", "b=2; Path=/"), ("X-Multi", "one")], Data())
    case "/auth":
      return send(401, [("WWW-Authenticate", "Basic realm=\"test\"")], Data("who are you".utf8))
    case "/big":
      return sendLarge(size)
    case "/continue":
      write(Data("HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n".utf8))
      return send(200, [], Data("after hints".utf8))
    case "/slow-head":
      return slowHead(delay: query["delay"].flatMap { Int($0) } ?? 300, stall: query["stall"] != nil)
    // Protocol faults, interim heads, a reused connection reset.
    case "/continue-100":
      write(Data("HTTP/1.1 100 Continue\r\n\r\n".utf8))
      return send(200, [], Data("after continue".utf8))
    case "/garbage-status":
      write(Data("HTTP/1.1 abc\r\nContent-Length: 2\r\n\r\nhi".utf8))
      return false
    case "/not-http":
      write(Data((0..<64).map { UInt8(truncatingIfNeeded: $0 &* 151 &+ 7) }))
      return false
    case "/bad-content-length":
      write(Data("HTTP/1.1 200 OK\r\nContent-Length: abc\r\n\r\nhi".utf8))
      return false
    case "/bad-chunked":
      write(Data("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhi\r\n0\r\n\r\n".utf8))
      return false
    case "/reset-reused":
      guard requestsOnConnection == 1 else {
        resetOnClose()
        return false
      }
      return send(200, [], request.bodyLength > 0 ? request.body : pattern(size))
    case "/flaky":
      let failures = query["fail"].flatMap { Int($0) } ?? 1
      guard server.requests.filter({ $0.path == "/flaky" }).count <= failures else {
        return send(200, [], Data("ok".utf8))
      }
      if query["reset"] != nil {
        resetOnClose()
        return false
      }
      let retryAfter = query["retry-after"].map { [("Retry-After", $0)] } ?? []
      return send(query["status"].flatMap { Int($0) } ?? 503, retryAfter, Data("try again".utf8))
    case "/gzip-bomb":
      return send(200, [("Content-Encoding", "gzip")], gzipBomb(mib: query["mib"].flatMap { Int($0) } ?? 1024))
    default:
      if path.hasPrefix("/chain/"), let remaining = Int(path.dropFirst(7)) {
        if remaining <= 0 { return send(200, [], Data("done".utf8)) }
        return send(302, [("Location", "/chain/\(remaining - 1)")], Data())
      }
      if path.hasPrefix("/status/"), let status = Int(path.dropFirst(8)) { return sendStatus(status) }
      return send(404, [], Data("no route".utf8))
    }
  }

  /// `/slow-head`: a status line, then a header line written one byte at a time, `delay` ms apart (no line is
  /// complete for several idle periods), then the end of the head and a 2-byte body; or, with `stall`, silence
  /// after the header line's fourth byte.
  private func slowHead(delay: Int, stall: Bool) -> Bool {
    guard write(Data("HTTP/1.1 200 OK\r\n".utf8)) else { return false }
    for (index, byte) in "X-Slow: drip\r\n".utf8.enumerated() {
      if stall && index == 4 {
        waitUntilGone()
        return false
      }
      guard pause(milliseconds: delay), write([byte]) else { return false }
    }
    return write(Data("Content-Length: 2\r\n\r\nok".utf8))
  }

  private func sendStatus(_ status: Int) -> Bool {
    send(status, [], status == 204 || status == 304 ? Data() : Data("status \(status)".utf8))
  }

  private func send(_ status: Int, _ headers: [(String, String)], _ body: Data) -> Bool {
    var fields = headers
    if status != 204 && status != 304 { fields.append(("Content-Length", String(body.count))) }
    guard writeHead(status, fields) else { return false }
    return isHead || write(body)
  }

  private func sendChunked(_ body: Data, chunk: Int, extra: [(String, String)] = []) -> Bool {
    guard writeHead(200, extra + [("Transfer-Encoding", "chunked")]) else { return false }
    var offset = 0
    while offset < body.count {
      let piece = body[body.startIndex + offset..<body.startIndex + min(offset + chunk, body.count)]
      guard write(Data(String(piece.count, radix: 16).utf8) + Data("\r\n".utf8) + piece + Data("\r\n".utf8)) else {
        return false
      }
      offset += piece.count
    }
    return write(Data("0\r\n\r\n".utf8))
  }

  private func drip(chunks: Int, size: Int, delay milliseconds: Int) -> Bool {
    guard writeHead(200, [("Content-Length", String(chunks * size))]) else { return false }
    for index in 0..<chunks {
      if index > 0 && !pause(milliseconds: milliseconds) { return false }
      guard write(pattern(from: index * size, count: size)) else { return false }
    }
    return true
  }

  /// The pattern from a block whose length is a multiple of 251, so the bytes run on unbroken across blocks.
  private func sendLarge(_ size: Int) -> Bool {
    guard writeHead(200, [("Content-Length", String(size))]) else { return false }
    let block = pattern(251 * 256)
    var sent = 0
    while sent < size {
      let count = min(block.count, size - sent)
      guard write(block.prefix(count)) else { return false }
      sent += count
    }
    return true
  }
}
