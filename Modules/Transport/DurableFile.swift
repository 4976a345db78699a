package import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Crash-safe file writes: a file is either absent or complete, never torn. The offline store, the HTTP cache, the
/// cookie file (MalibuStorage) and cassettes (MalibuMocking) write through it.
///
/// A write goes to a temporary file (`.tmp-<process id>-<UUID>`) in the same directory, is flushed with `fsync`, renamed over
/// the destination (atomic on POSIX file systems), and the directory is synced so the rename itself survives a
/// power loss.
package enum DurableFile {
  /// Why a write failed: the operation, the file and `errno`.
  package struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was being done: `create`, `write`, `fsync`, `rename`, `link`, `open`, ...
    package var operation: String
    /// The file's path.
    package var path: String
    /// `errno`.
    package var code: Int32

    /// Creates a failure.
    package init(_ operation: String, _ file: URL, _ code: Int32) {
      self.operation = operation
      self.path = file.path
      self.code = code
    }

    /// "`operation` failed for `path`: `strerror`".
    package var description: String {
      "\(operation) failed for \(path): \(String(cString: strerror(code)))"
    }
  }

  /// The prefix of temporary files; leftovers of an interrupted write are deleted when the directory is loaded.
  package static let temporaryPrefix = ".tmp-"

  /// The prefix of the temporary files this process writes: `.tmp-<process id>-`.
  package static let processTemporaryPrefix = temporaryPrefix + "\(getpid())-"

  /// Writes `data` to `destination`, replacing any file of that name whole.
  package static func write(_ data: Data, to destination: URL) throws(Failure) {
    let directory = destination.deletingLastPathComponent()
    let temporary = try writeTemporary(data, in: directory)
    guard rename(temporary.path, destination.path) == 0 else {
      let code = errno
      unlink(temporary.path)
      throw Failure("rename", destination, code)
    }
    try syncDirectory(directory)
  }

  /// Writes a file only if none exists under that name (`link` of a synced temporary file, so the file appears
  /// whole or not at all).
  /// - Returns: `false` when a file of that name already existed; it is left as it is.
  package static func create(_ data: Data, at destination: URL) throws(Failure) -> Bool {
    let directory = destination.deletingLastPathComponent()
    let temporary = try writeTemporary(data, in: directory)
    defer { unlink(temporary.path) }
    guard link(temporary.path, destination.path) == 0 else {
      let code = errno
      if code == EEXIST { return false }
      throw Failure("link", destination, code)
    }
    try syncDirectory(directory)
    return true
  }

  private static func writeTemporary(_ data: Data, in directory: URL) throws(Failure) -> URL {
    let temporary = directory.appendingPathComponent(processTemporaryPrefix + UUID().uuidString)
    let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { throw Failure("create", temporary, errno) }
    let writeErrno = writeAll(descriptor, data)
    let syncErrno = writeErrno == 0 && fsync(descriptor) != 0 ? errno : 0
    close(descriptor)
    if writeErrno != 0 || syncErrno != 0 {
      unlink(temporary.path)
      throw Failure(writeErrno != 0 ? "write" : "fsync", temporary, writeErrno != 0 ? writeErrno : syncErrno)
    }
    return temporary
  }

  /// Creates a directory and any missing parents (mode `0700`), syncing each new directory and its parent so that
  /// the creation itself survives a power loss, like the files written into it.
  package static func createDirectory(_ directory: URL) throws(Failure) {
    var missing: [String] = []
    var current = directory.path
    var status = stat()
    while !current.isEmpty, current != "/", lstat(current, &status) != 0 {
      guard errno == ENOENT else { throw Failure("stat", URL(fileURLWithPath: current), errno) }
      missing.append(current)
      current = (current as NSString).deletingLastPathComponent
    }
    for path in missing.reversed() {
      if mkdir(path, 0o700) != 0 {
        let code = errno
        // Another thread or process created it in between: it still needs the syncs below.
        guard code == EEXIST else { throw Failure("create the directory", URL(fileURLWithPath: path), code) }
      }
      try syncDirectory(URL(fileURLWithPath: path, isDirectory: true))
      try syncDirectory(URL(fileURLWithPath: (path as NSString).deletingLastPathComponent, isDirectory: true))
    }
  }

  /// Flushes a directory, so that the names created, renamed or removed in it survive a power loss.
  package static func syncDirectory(_ directory: URL) throws(Failure) {
    let descriptor = open(directory.path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw Failure("open", directory, errno) }
    defer { close(descriptor) }
    guard fsync(descriptor) == 0 else { throw Failure("fsync", directory, errno) }
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
}
