import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Crash-safe file operations: a file is either absent or complete, never torn.
///
/// A write goes to a temporary file (`.tmp-<UUID>`) in the same directory, is flushed with `fsync`, renamed over
/// the destination (atomic on POSIX file systems), and the directory is synced so the rename itself survives a
/// power loss.
enum DurableFile {
  /// The prefix of temporary files; leftovers of an interrupted write are deleted when the directory is loaded.
  static let temporaryPrefix = ".tmp-"

  static func write(_ data: Data, to destination: URL) throws(StorageError) {
    let directory = destination.deletingLastPathComponent()
    let temporary = directory.appendingPathComponent(temporaryPrefix + UUID().uuidString)
    let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { throw failure("create", temporary, errno) }
    let writeErrno = writeAll(descriptor, data)
    let syncErrno = writeErrno == 0 && fsync(descriptor) != 0 ? errno : 0
    close(descriptor)
    if writeErrno != 0 || syncErrno != 0 {
      unlink(temporary.path)
      throw failure(writeErrno != 0 ? "write" : "fsync", temporary, writeErrno != 0 ? writeErrno : syncErrno)
    }
    guard rename(temporary.path, destination.path) == 0 else {
      let code = errno
      unlink(temporary.path)
      throw failure("rename", destination, code)
    }
    try syncDirectory(directory)
  }

  static func remove(_ file: URL) throws(StorageError) {
    guard unlink(file.path) == 0 else {
      let code = errno
      if code == ENOENT { return }
      throw failure("remove", file, code)
    }
    try syncDirectory(file.deletingLastPathComponent())
  }

  static func move(_ file: URL, to destination: URL) throws(StorageError) {
    guard rename(file.path, destination.path) == 0 else { throw failure("move", file, errno) }
    try syncDirectory(destination.deletingLastPathComponent())
    try syncDirectory(file.deletingLastPathComponent())
  }

  static func createDirectory(_ directory: URL) throws(StorageError) {
    do {
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    } catch {
      throw StorageError(
        code: .ioFailed,
        message: "cannot create the directory \(directory.path)",
        underlyingError: error
      )
    }
  }

  static func syncDirectory(_ directory: URL) throws(StorageError) {
    let descriptor = open(directory.path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw failure("open", directory, errno) }
    defer { close(descriptor) }
    guard fsync(descriptor) == 0 else { throw failure("fsync", directory, errno) }
  }

  private static func writeAll(_ descriptor: Int32, _ data: Data) -> Int32 {
    data.withUnsafeBytes { raw -> Int32 in
      guard let base = raw.baseAddress else { return 0 }
      var offset = 0
      while offset < raw.count {
        let written = systemWrite(descriptor, base + offset, raw.count - offset)
        if written < 0 {
          if errno == EINTR { continue }
          return errno
        }
        offset += written
      }
      return 0
    }
  }

  private static func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    return Glibc.write(descriptor, bytes, count)
    #elseif canImport(Musl)
    return Musl.write(descriptor, bytes, count)
    #else
    return Darwin.write(descriptor, bytes, count)
    #endif
  }

  private static func failure(_ operation: String, _ file: URL, _ code: Int32) -> StorageError {
    StorageError(
      code: .ioFailed,
      message: "\(operation) failed for \(file.path): \(String(cString: strerror(code)))"
    )
  }
}
