import Foundation
import MalibuTransport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The offline store's, the HTTP cache's and the cookie file's file operations, in ``StorageError``: the crash-safe
/// writes of MalibuTransport's `DurableFile`, and the reads and removals that go with them.
enum StoreFile {
  /// The prefix of temporary files; leftovers of an interrupted write are deleted when the directory is loaded.
  static var temporaryPrefix: String { DurableFile.temporaryPrefix }

  /// The prefix of the temporary files this process writes: `.tmp-<process id>-`.
  static var processTemporaryPrefix: String { DurableFile.processTemporaryPrefix }

  /// Writes `data` to `destination`, whole or not at all.
  static func write(_ data: Data, to destination: URL) throws(StorageError) {
    do { try DurableFile.write(data, to: destination) } catch { throw failure(error) }
  }

  /// Writes a file only if none exists under that name.
  /// - Returns: `false` when a file of that name already existed; it is left as it is.
  static func create(_ data: Data, at destination: URL) throws(StorageError) -> Bool {
    do { return try DurableFile.create(data, at: destination) } catch { throw failure(error) }
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

  /// Creates a directory and any missing parents (mode `0700`), durably.
  static func createDirectory(_ directory: URL) throws(StorageError) {
    do { try DurableFile.createDirectory(directory) } catch { throw failure(error) }
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
    do { try DurableFile.syncDirectory(directory) } catch { throw failure(error) }
  }

  private static func failure(_ failure: DurableFile.Failure) -> StorageError {
    StorageError(code: .ioFailed, message: failure.description)
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
