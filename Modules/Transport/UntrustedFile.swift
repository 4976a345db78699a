package import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Opens files the library did not just write (download partials and their records, the HTTP cache's salt and
/// records, the cookie file, the offline store's entries and key, GraphQL query files): anyone who can write to
/// their directory can plant something else under their name.
///
/// Every open is `O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC`: a symbolic link is refused rather than followed, and a FIFO
/// (or a device) cannot block the open. The descriptor is then checked with `fstat`: anything but a regular file is
/// refused, and a file opened for writing must have exactly one link, so that a hard link planted under the name is
/// never written through to the file it shares.
package enum UntrustedFile {
  /// Why a file was refused.
  package struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kinds of refusal.
    package enum Reason: Sendable, Equatable {
      /// There is no file of that name (`ENOENT`).
      case missing
      /// The name is a symbolic link (`ELOOP` from `O_NOFOLLOW`).
      case symbolicLink
      /// The file is a FIFO, a directory, a device or a socket.
      case notRegularFile
      /// The file has more than one hard link and would be written.
      case severalLinks(Int)
      /// The file is larger than the caller reads.
      case tooLarge(Int64, limit: Int)
      /// `open`, `fstat` or `read` failed with this `errno`.
      case system(Int32)
    }

    /// Why.
    package var reason: Reason
    /// The file's last path component (never its directory, which may name a user).
    package var name: String

    /// A sentence saying which file was refused and why.
    package var description: String {
      switch reason {
      case .missing: "\(name) does not exist"
      case .symbolicLink: "\(name) is a symbolic link, which is never followed"
      case .notRegularFile: "\(name) is not a regular file"
      case .severalLinks(let count): "\(name) has \(count) hard links, so writing it would change another file"
      case .tooLarge(let size, let limit): "\(name) is larger than expected (\(size) bytes, limit \(limit))"
      case .system(let code): "\(name) cannot be opened (\(String(cString: strerror(code))))"
      }
    }
  }

  /// Opens `file` for reading (or for writing, with `forWriting`) without following a link or blocking, and checks
  /// that it is a regular file (with a single link when written).
  /// - Parameters:
  ///   - file: The file.
  ///   - forWriting: Open `O_WRONLY` and refuse a file with more than one link.
  /// - Returns: The open descriptor (the caller closes it) and the file's status.
  /// - Throws: ``Refusal``.
  package static func open(_ file: URL, forWriting: Bool = false) throws(Refusal) -> (descriptor: Int32, status: stat) {
    let flags = (forWriting ? O_WRONLY : O_RDONLY) | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC
    let descriptor = systemOpen(file.path, flags)
    let name = file.lastPathComponent
    guard descriptor >= 0 else {
      let code = errno
      switch code {
      case ENOENT: throw Refusal(reason: .missing, name: name)
      case ELOOP: throw Refusal(reason: .symbolicLink, name: name)
      // A FIFO opened for writing with no reader, or a device that wants no writer.
      case ENXIO, EISDIR: throw Refusal(reason: .notRegularFile, name: name)
      default: throw Refusal(reason: .system(code), name: name)
      }
    }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else {
      let code = errno
      close(descriptor)
      throw Refusal(reason: .system(code), name: name)
    }
    guard status.st_mode & S_IFMT == S_IFREG else {
      close(descriptor)
      throw Refusal(reason: .notRegularFile, name: name)
    }
    if forWriting, status.st_nlink > 1 {
      close(descriptor)
      throw Refusal(reason: .severalLinks(Int(status.st_nlink)), name: name)
    }
    return (descriptor, status)
  }

  /// Creates `file` for writing, failing when anything exists under its name (`O_CREAT | O_EXCL | O_NOFOLLOW`), so
  /// a link planted between removing an old file and creating the new one is never written through.
  /// - Parameters:
  ///   - file: The file.
  ///   - mode: Its permissions.
  /// - Returns: The open descriptor; the caller closes it.
  /// - Throws: ``Refusal``.
  package static func create(_ file: URL, mode: mode_t = 0o644) throws(Refusal) -> Int32 {
    let descriptor = systemOpen(file.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
    guard descriptor >= 0 else { throw Refusal(reason: .system(errno), name: file.lastPathComponent) }
    return descriptor
  }

  /// Reads a whole regular file of at most `limit` bytes, opened as ``open(_:forWriting:)`` does.
  /// - Parameters:
  ///   - file: The file.
  ///   - limit: The largest size read; a larger file is refused without reading it.
  /// - Returns: The bytes and the status of the file read.
  /// - Throws: ``Refusal``.
  package static func read(_ file: URL, limit: Int) throws(Refusal) -> (data: Data, status: stat) {
    let (descriptor, status) = try open(file)
    defer { close(descriptor) }
    guard status.st_size <= limit else {
      throw Refusal(reason: .tooLarge(Int64(status.st_size), limit: limit), name: file.lastPathComponent)
    }
    var data = Data(count: Int(status.st_size))
    var filled = 0
    let readErrno = data.withUnsafeMutableBytes { raw -> Int32 in
      guard let base = raw.baseAddress else { return 0 }
      while filled < raw.count {
        let count = systemRead(descriptor, base + filled, raw.count - filled)
        if count < 0 {
          if errno == EINTR { continue }
          return errno
        }
        if count == 0 { break }
        filled += count
      }
      return 0
    }
    guard readErrno == 0 else { throw Refusal(reason: .system(readErrno), name: file.lastPathComponent) }
    data.removeSubrange(filled...)
    return (data, status)
  }

  private static func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t = 0) -> Int32 {
    #if canImport(Glibc)
    return Glibc.open(path, flags, mode)
    #elseif canImport(Musl)
    return Musl.open(path, flags, mode)
    #else
    return Darwin.open(path, flags, mode)
    #endif
  }

  private static func systemRead(_ descriptor: Int32, _ bytes: UnsafeMutableRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    return Glibc.read(descriptor, bytes, count)
    #elseif canImport(Musl)
    return Musl.read(descriptor, bytes, count)
    #else
    return Darwin.read(descriptor, bytes, count)
    #endif
  }
}
