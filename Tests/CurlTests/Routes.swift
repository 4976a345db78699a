import Foundation
import MalibuGzip

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The test server's scripted answers, by path. Query parameters: `n` (a size), `sent` (bytes sent before a failure),
/// `delay` (milliseconds), `status`, `to` (a percent-encoded location), `chunk` (chunk size).
enum Routes {
  /// The byte at `index` of every generated body.
  static func byte(at index: Int) -> UInt8 { UInt8(truncatingIfNeeded: index % 251) }

  /// A generated body of `count` bytes.
  static func body(_ count: Int) -> Data {
    Data((0..<count).map { byte(at: $0) })
  }

  /// `body(count)` compressed with gzip.
  static func gzipBody(_ count: Int) -> Data {
    let deflater = Deflater(format: .gzip)
    var data = try! deflater.deflate(body(count))
    data.append(try! deflater.finish())
    return data
  }

  /// Answers one request; returns whether the connection stays open.
  static func respond(to request: RecordedRequest, on connection: Connection, server: TestServer) -> Bool {
    let query = parameters(request.target)
    let count = query["n"].flatMap { Int($0) } ?? 100
    let sent = query["sent"].flatMap { Int($0) } ?? count / 2
    let delay = query["delay"].flatMap { Int($0) } ?? 0
    switch request.path {
    case "/echo":
      return reply(connection, body: request.body, headers: ["Content-Type": "application/octet-stream"])
    case "/bytes":
      return reply(connection, body: body(count))
    case "/status":
      let status = query["status"].flatMap { Int($0) } ?? 200
      return reply(connection, status: status, body: Data("status \(status)".utf8))
    case "/chunked":
      let size = query["chunk"].flatMap { Int($0) } ?? 1000
      connection.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
      let data = body(count)
      var offset = 0
      while offset < data.count {
        let piece = data[offset..<min(offset + size, data.count)]
        connection.write(String(piece.count, radix: 16) + "\r\n")
        connection.write(piece)
        connection.write("\r\n")
        offset += piece.count
      }
      return connection.write("0\r\n\r\n")
    case "/gzip":
      return reply(connection, body: gzipBody(count), headers: ["Content-Encoding": "gzip"])
    case "/gzip-truncated":
      let data = gzipBody(count)
      return reply(connection, body: data.prefix(data.count / 2), headers: ["Content-Encoding": "gzip"])
    case "/not-gzip":
      return reply(connection, body: Data("this is not gzip at all".utf8), headers: ["Content-Encoding": "gzip"])
    case "/bomb":
      let deflater = Deflater(format: .gzip, level: .best)
      var data = try! deflater.deflate(Data(count: count))
      data.append(try! deflater.finish())
      return reply(connection, body: data, headers: ["Content-Encoding": "gzip"])
    case "/drip":
      connection.write("HTTP/1.1 200 OK\r\nContent-Length: \(count)\r\n\r\n")
      for index in 0..<count {
        usleep(UInt32(delay * 1000))
        guard connection.write([byte(at: index)]) else { return false }
      }
      return true
    case "/delay":
      usleep(UInt32(delay * 1000))
      return reply(connection, body: Data("late".utf8))
    case "/stall":
      connection.waitForClose()
      return false
    case "/stall-body":
      connection.write("HTTP/1.1 200 OK\r\nContent-Length: \(count)\r\n\r\n")
      connection.write(body(count).prefix(sent))
      connection.waitForClose()
      return false
    case "/close-mid-body":
      connection.write("HTTP/1.1 200 OK\r\nContent-Length: \(count)\r\n\r\n")
      connection.write(body(count).prefix(sent))
      return false
    case "/large":
      connection.write("HTTP/1.1 200 OK\r\nContent-Length: \(count)\r\n\r\n")
      let block = body(64 * 251 * 4)
      var remaining = count
      while remaining > 0 {
        let piece = block.prefix(remaining)
        guard connection.write(piece) else { return false }
        remaining -= piece.count
      }
      return true
    case "/redirect":
      let status = query["status"].flatMap { Int($0) } ?? 302
      let location = query["to"] ?? "/echo"
      return reply(connection, status: status, body: Data("moved".utf8), headers: ["Location": location])
    case "/chain":
      if count > 0 {
        return reply(connection, status: 302, body: Data(), headers: ["Location": "/chain?n=\(count - 1)"])
      }
      return reply(connection, body: Data("done".utf8))
    case "/loop":
      return reply(connection, status: 302, body: Data(), headers: ["Location": "/loop"])
    case "/continue":
      connection.write("HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\n\r\n")
      return reply(connection, body: Data("after hints".utf8))
    default:
      return reply(connection, status: 404, body: Data("not found".utf8))
    }
  }

  private static func reply(
    _ connection: Connection,
    status: Int = 200,
    body: Data,
    headers: [String: String] = [:]
  ) -> Bool {
    let bodyless = status == 204 || status == 304
    var head = "HTTP/1.1 \(status) Scripted\r\n"
    if !bodyless { head += "Content-Length: \(body.count)\r\n" }
    for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
    head += "\r\n"
    var message = Data(head.utf8)
    if !bodyless { message.append(body) }
    return connection.write(message)
  }

  private static func parameters(_ target: String) -> [String: String] {
    guard let query = target.split(separator: "?", maxSplits: 1).dropFirst().first else { return [:] }
    var result: [String: String] = [:]
    for pair in query.split(separator: "&") {
      let parts = pair.split(separator: "=", maxSplits: 1)
      let value = parts.count > 1 ? String(parts[1]) : ""
      result[String(parts[0])] = value.removingPercentEncoding ?? value
    }
    return result
  }
}
