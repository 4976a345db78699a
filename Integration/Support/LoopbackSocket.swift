#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The two socket chores of the harness, on 127.0.0.1 only: finding a free port and asking a server for a status
/// code. Plain blocking BSD sockets with short timeouts, so the readiness probe starts no URLSession machinery.
enum LoopbackSocket {
  #if os(Linux)
  private static let streamType = Int32(SOCK_STREAM.rawValue)
  #else
  private static let streamType = SOCK_STREAM
  #endif

  /// A port that was free a moment ago: bind 127.0.0.1:0, read the port the kernel chose, close.
  /// The caller retries with another port if the server then finds it taken.
  static func freePort() -> UInt16? {
    let descriptor = socket(AF_INET, streamType, 0)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var address = loopbackAddress(port: 0)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0 else { return nil }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let named = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
    }
    guard named == 0 else { return nil }
    let port = UInt16(bigEndian: address.sin_port)
    return port == 0 ? nil : port
  }

  /// Sends `GET path` to 127.0.0.1:`port` and returns the status code and the first bytes of the answer,
  /// or nil when nothing answers (connection refused, timeout, not HTTP).
  static func get(port: UInt16, path: String, timeoutSeconds: Int = 2) -> (status: Int, head: String)? {
    let descriptor = socket(AF_INET, streamType, 0)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
    let timeoutSize = socklen_t(MemoryLayout<timeval>.size)
    _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, timeoutSize)
    _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, timeoutSize)
    var address = loopbackAddress(port: port)
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard connected == 0 else { return nil }

    let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8)
    let sent = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
    guard sent == request.count else { return nil }

    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while received.count < 16_384 {
      let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
      guard count > 0 else { break }
      received += buffer[0..<count]
    }
    let head = String(decoding: received, as: UTF8.self)
    // "HTTP/1.1 200 OK"
    let statusLine = head.prefix { $0 != "\r" && $0 != "\n" }
    let fields = statusLine.split(separator: " ")
    guard fields.count >= 2, fields[0].hasPrefix("HTTP/"), let status = Int(fields[1]) else { return nil }
    return (status, head)
  }

  private static func loopbackAddress(port: UInt16) -> sockaddr_in {
    var address = sockaddr_in()
    #if canImport(Darwin)
    address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
    #endif
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr = in_addr(s_addr: UInt32(0x7F00_0001).bigEndian)
    return address
  }
}
