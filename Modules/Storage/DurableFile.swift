import Foundation
import MalibuTransport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Crash-safe file operations: a file is either absent or complete, never torn.
///
/// A write goes to a temporary file (`.tmp-<process id>-<UUID>`) in the same directory, is flushed with `fsync`, renamed over
/// the destination (atomic on POSIX file systems), and the directory is synced so the rename itself survives a
/// power loss.
enum DurableFile {
  /// The prefix of temporary files; leftovers of an interrupted write are deleted when the directory is loaded.
  static let temporaryPrefix = ".tmp-"

  /// The prefix of the temporary files this process writes: `.tmp-<process id>-`.
  static let processTemporaryPrefix = temporaryPrefix + "\(getpid())-"

  static func write(_ data: Data, to destination: URL) throws(StorageError) {
    let directory = destination.deletingLastPathComponent()
    let temporary = try writeTemporary(data, in: directory)
    guard rename(temporary.path, destination.path) == 0 else {
      let code = errno
      unlink(temporary.path)
      throw failure("rename", destination, code)
    }
    try syncDirectory(directory)
  }

  /// Writes a file only if none exists under that name (`link` of a synced temporary file, so the file appears
  /// whole or not at all).
  /// - Returns: `false` when a file of that name already existed; it is left as it is.
  static func create(_ data: Data, at destination: URL) throws(StorageError) -> Bool {
    let directory = destination.deletingLastPathComponent()
    let temporary = try writeTemporary(data, in: directory)
    defer { unlink(temporary.path) }
    guard link(temporary.path, destination.path) == 0 else {
      let code = errno
      if code == EEXIST { return false }
      throw failure("link", destination, code)
    }
    try syncDirectory(directory)
    return true
  }

  private static func writeTemporary(_ data: Data, in directory: URL) throws(StorageError) -> URL {
    let temporary = directory.appendingPathComponent(processTemporaryPrefix + UUID().uuidString)
    let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { throw failure("create", temporary, errno) }
    let writeErrno = writeAll(descriptor, data)
    let syncErrno = writeErrno == 0 && fsync(descriptor) != 0 ? errno : 0
    close(descriptor)
    if writeErrno != 0 || syncErrno != 0 {
      unlink(temporary.path)
      throw failure(writeErrno != 0 ? "write" : "fsync", temporary, writeErrno != 0 ? writeErrno : syncErrno)
    }
    return temporary
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

  /// Creates a directory and any missing parents (mode `0700`), syncing each new directory and its parent so that
  /// the creation itself survives a power loss, like the files written into it.
  static func createDirectory(_ directory: URL) throws(StorageError) {
    var missing: [String] = []
    var current = directory.path
    var status = stat()
    while !current.isEmpty, current != "/", lstat(current, &status) != 0 {
      guard errno == ENOENT else { throw failure("stat", URL(fileURLWithPath: current), errno) }
      missing.append(current)
      current = (current as NSString).deletingLastPathComponent
    }
    for path in missing.reversed() {
      if mkdir(path, 0o700) != 0 {
        let code = errno
        // Another thread or process created it in between: it still needs the syncs below.
        guard code == EEXIST else { throw failure("create the directory", URL(fileURLWithPath: path), code) }
      }
      try syncDirectory(URL(fileURLWithPath: path, isDirectory: true))
      try syncDirectory(URL(fileURLWithPath: (path as NSString).deletingLastPathComponent, isDirectory: true))
    }
  }

  /// The identity and version of a file as `lstat` sees it (a symbolic link is not followed), or `nil` when there
  /// is no such file.
  static func stamp(of file: URL) -> FileStamp? {
    stamp(atPath: file.path)
  }

  /// ``stamp(of:)`` for a path.
  static func stamp(atPath path: String) -> FileStamp? {
    var status = stat()
    guard lstat(path, &status) == 0 else { return nil }
    return FileStamp(status)
  }

  /// The names in a directory (without `.` and `..`), or `nil` when it does not exist.
  static func names(in directory: URL) throws(StorageError) -> [String]? {
    guard let stream = opendir(directory.path) else {
      let code = errno
      if code == ENOENT { return nil }
      throw failure("list", directory, code)
    }
    defer { closedir(stream) }
    var names: [String] = []
    while let item = readdir(stream) {
      let name = withUnsafeBytes(of: item.pointee.d_name) { raw in
        String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
      }
      if name != "." && name != ".." { names.append(name) }
    }
    return names
  }

  /// Reads a regular file without following a symbolic link or blocking on a FIFO (``UntrustedFile``), refusing
  /// anything larger than `limit`, and returns its bytes with the stamp of the file that was read.
  static func readRegularFile(_ file: URL, limit: Int) throws(StorageError) -> (Data, FileStamp) {
    do {
      let (data, status) = try UntrustedFile.read(file, limit: limit)
      return (data, FileStamp(status))
    } catch {
      switch error.reason {
      case .notRegularFile, .severalLinks:
        throw StorageError(code: .corruptEntry, message: "\(file.lastPathComponent) is not a regular file")
      case .tooLarge(let size, let limit):
        throw StorageError(
          code: .corruptEntry,
          message: "\(file.lastPathComponent) is larger than an entry can be (\(size) bytes, limit \(limit))"
        )
      case .missing: throw failure("open", file, ENOENT)
      case .symbolicLink: throw failure("open", file, ELOOP)
      case .system(let code): throw failure("read", file, code)
      }
    }
  }

  /// Closes a file descriptor (for code where `close` names something else).
  static func closeDescriptor(_ descriptor: Int32) {
    close(descriptor)
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

  static func failure(_ operation: String, _ file: URL, _ code: Int32) -> StorageError {
    StorageError(
      code: .ioFailed,
      message: "\(operation) failed for \(file.path): \(String(cString: strerror(code)))"
    )
  }
}

/// What identifies one version of a file: device, inode, size and both modification and status-change times. A write
/// by rename gives a new inode, and a write in place changes the size or the times, so an unchanged stamp means the
/// file was not rewritten (to the file system's timestamp resolution).
struct FileStamp: Hashable, Sendable {
  var device: UInt64
  var inode: UInt64
  var size: Int64
  var modified: Int64
  var modifiedNanoseconds: Int
  var changed: Int64
  var changedNanoseconds: Int

  init(_ status: stat) {
    device = UInt64(truncatingIfNeeded: status.st_dev)
    inode = UInt64(truncatingIfNeeded: status.st_ino)
    size = Int64(status.st_size)
    #if canImport(Darwin)
    modified = Int64(status.st_mtimespec.tv_sec)
    modifiedNanoseconds = Int(status.st_mtimespec.tv_nsec)
    changed = Int64(status.st_ctimespec.tv_sec)
    changedNanoseconds = Int(status.st_ctimespec.tv_nsec)
    #else
    modified = Int64(status.st_mtim.tv_sec)
    modifiedNanoseconds = Int(status.st_mtim.tv_nsec)
    changed = Int64(status.st_ctim.tv_sec)
    changedNanoseconds = Int(status.st_ctim.tv_nsec)
    #endif
  }
}
