import Foundation
import MalibuCore

#if canImport(Glibc)
import Glibc
#endif

/// A loopback server that answers every connection with the same bytes and closes it: for responses no real server
/// sends on purpose, such as a body cut short.
final class CannedServer {
  let port: UInt16
  private let listener: Int32
  private let thread: Thread

  init(response: Data) throws {
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var reuse: Int32 = 1
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
    }
    guard bound == 0, listen(listener, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
    }
    port = UInt16(bigEndian: address.sin_port)
    self.listener = listener
    thread = Thread {
      while true {
        let connection = accept(listener, nil, nil)
        if connection < 0 { return }
        CannedServer.readHead(connection)
        response.withUnsafeBytes { _ = send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        usleep(50_000)
        _ = Glibc.close(connection)
      }
    }
    thread.start()
  }

  /// Stops accepting; the thread ends on the failed accept.
  func close() {
    shutdown(listener, Int32(SHUT_RDWR))
    _ = Glibc.close(listener)
  }

  private static func readHead(_ connection: Int32) {
    var received = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while !received.suffix(4).elementsEqual("\r\n\r\n".utf8) {
      let count = recv(connection, &buffer, buffer.count, 0)
      if count <= 0 { return }
      received += buffer[0..<count]
    }
  }
}
