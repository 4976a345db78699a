import Foundation
import MalibuGzip

/// Deterministic body bytes: byte i is `i % 251`.
func pattern(_ count: Int) -> Data {
  Data((0..<count).map { UInt8($0 % 251) })
}

extension Connection {
  /// Answers one request; `false` closes the connection.
  ///
  /// Routes (query parameters in brackets):
  /// - `/echo`: the request head as received, then its body.
  /// - `/bytes[size]`, `/chunked[size, chunk]`: the pattern, with a length or chunked.
  /// - `/gzip[size]`, `/gzip-chunked[size]`, `/deflate[size]`: the pattern, encoded.
  /// - `/gzip-zeros[size]`: zeros, gzip-encoded (a small body that decodes to a lot).
  /// - `/gzip-truncated[size]`: a gzip stream cut in the middle, with a matching Content-Length.
  /// - `/not-gzip`: `Content-Encoding: gzip` on plain text.
  /// - `/coding[name]`: plain text labelled with an arbitrary content coding.
  /// - `/drip[chunks, size, delay]`: a known length sent piece by piece.
  /// - `/stall-head`, `/stall-body`: no response, or a head and a few bytes, then silence.
  /// - `/close-mid`, `/close-mid-chunked`, `/close-no-response`: the connection closed early.
  /// - `/redirect[status, to]`, `/chain/N`, `/loop`: redirects.
  /// - `/status/N`, `/set-cookie`, `/auth`, `/big[size]`.
  func respond(to request: RecordedRequest) -> Bool {
    let components = URLComponents(string: request.target)
    let path = components?.path ?? request.target
    var query: [String: String] = [:]
    for item in components?.queryItems ?? [] { query[item.name] = item.value ?? "" }
    let size = query["size"].flatMap { Int($0) } ?? 1000

    switch path {
    case "/echo":
      var body = request.rawHead
      body.append(request.body)
      return send(200, [("Content-Type", "application/octet-stream")], body)
    case "/sink":
      return send(200, [], Data(String(request.bodyLength).utf8))
    case "/bytes":
      return send(200, [("Content-Type", "application/octet-stream")], pattern(size))
    case "/chunked":
      return sendChunked(pattern(size), chunk: query["chunk"].flatMap { Int($0) } ?? 100)
    case "/gzip":
      return send(200, [("Content-Encoding", "gzip")], try! Gzip.deflate(pattern(size)))
    case "/gzip-chunked":
      return sendChunked(try! Gzip.deflate(pattern(size)), chunk: 97, extra: [("Content-Encoding", "gzip")])
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
      return drip(chunks: query["chunks"].flatMap { Int($0) } ?? 5, size: size, delay: query["delay"] ?? "50")
    case "/stall-head":
      waitUntilGone()
      return false
    case "/stall-body":
      writeHead(200, [("Content-Length", "1000")])
      write(pattern(10))
      waitUntilGone()
      return false
    case "/close-mid":
      writeHead(200, [("Content-Length", "1000")])
      write(pattern(100))
      return false
    case "/close-mid-chunked":
      writeHead(200, [("Transfer-Encoding", "chunked")])
      write(Data("64\r\n".utf8) + pattern(100) + Data("\r\n".utf8))
      return false
    case "/close-no-response":
      return false
    case "/redirect":
      let status = query["status"].flatMap { Int($0) } ?? 302
      return send(status, [("Location", query["to"] ?? "/echo")], Data("redirecting".utf8))
    case "/loop":
      return send(302, [("Location", "/loop")], Data())
    case "/set-cookie":
      return send(200, [("Set-Cookie", "a=1; Path=/"), ("Set-Cookie", "b=2; Path=/"), ("X-Multi", "one")], Data())
    case "/auth":
      return send(401, [("WWW-Authenticate", "Basic realm=\"test\"")], Data("who are you".utf8))
    case "/big":
      return sendLarge(size)
    default:
      if path.hasPrefix("/chain/"), let remaining = Int(path.dropFirst(7)) {
        if remaining == 0 { return send(200, [], Data("done".utf8)) }
        return send(302, [("Location", "/chain/\(remaining - 1)")], Data())
      }
      if path.hasPrefix("/status/"), let status = Int(path.dropFirst(8)) {
        return send(status, [], status == 204 || status == 304 ? Data() : Data("status \(status)".utf8))
      }
      return send(404, [], Data("no route".utf8))
    }
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

  private func drip(chunks: Int, size: Int, delay: String) -> Bool {
    guard writeHead(200, [("Content-Length", String(chunks * size))]) else { return false }
    let milliseconds = Int(delay) ?? 50
    for index in 0..<chunks {
      if index > 0 && !pause(milliseconds: milliseconds) { return false }
      guard write(Data(repeating: UInt8(ascii: "a") + UInt8(index % 26), count: size)) else { return false }
    }
    return true
  }

  private func sendLarge(_ size: Int) -> Bool {
    guard writeHead(200, [("Content-Length", String(size))]) else { return false }
    let piece = pattern(64 * 1024)
    var sent = 0
    while sent < size {
      let count = min(piece.count, size - sent)
      guard write(piece.prefix(count)) else { return false }
      sent += count
    }
    return true
  }
}
