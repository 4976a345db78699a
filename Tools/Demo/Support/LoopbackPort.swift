#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Loopback ports for the offline step.
enum LoopbackPort {
  /// A port on 127.0.0.1 that nothing listened on a moment ago: the kernel's pick for a socket bound to port 0.
  static func free() throws(TourFailure) -> Int {
    #if canImport(Glibc)
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
    let descriptor = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard descriptor >= 0 else { throw TourFailure("cannot open a socket (errno \(errno))") }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let status = withUnsafeMutablePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
        bind(descriptor, socketAddress, length) == 0 ? getsockname(descriptor, socketAddress, &length) : -1
      }
    }
    guard status == 0 else { throw TourFailure("cannot bind a socket to 127.0.0.1 (errno \(errno))") }
    return Int(UInt16(bigEndian: address.sin_port))
  }
}
