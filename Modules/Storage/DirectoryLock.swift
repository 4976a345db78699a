import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Ownership of a store directory: an exclusive `flock` on `<directory>/.lock`, held until ``release()``.
///
/// `flock` locks belong to an open file description, so a second `open` of the same lock file conflicts with the
/// first even inside one process: a second store instance on the directory is refused as surely as another process.
/// The kernel drops the lock when the owner's descriptor is closed or the process dies (a `SIGKILL` included), so a
/// crashed owner never leaves the directory locked.
struct DirectoryLock: Sendable {
  /// The name of the lock file inside the directory.
  static let fileName = ".lock"

  private let descriptor: Int32
  /// When the lock was taken (`CLOCK_REALTIME`, the clock file times use): a temporary file last modified before
  /// this moment belongs to no live writer.
  let acquired: (seconds: Int64, nanoseconds: Int)

  /// Takes the lock, creating the lock file if missing, without waiting.
  /// - Throws: ``StorageError`` with code ``StorageError/Code/directoryInUse`` when another owner holds it,
  ///   ``StorageError/Code/ioFailed`` when the lock file cannot be opened or is not a regular file.
  static func acquire(in directory: URL) throws(StorageError) -> DirectoryLock {
    let file = directory.appendingPathComponent(fileName)
    // O_NOFOLLOW and O_NONBLOCK: a link or a FIFO planted under the name neither redirects nor blocks the open.
    let descriptor = open(file.path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { throw StoreFile.failure("open the lock file", file, errno) }
    var status = stat()
    guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
      close(descriptor)
      throw StorageError(code: .ioFailed, message: "\(file.path) is not a regular file, so it cannot lock the store")
    }
    guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
      let code = errno
      close(descriptor)
      if code == EWOULDBLOCK || code == EAGAIN {
        throw StorageError(
          code: .directoryInUse,
          message: "the offline store directory \(directory.path) is owned by another OfflineRequestStore (in this "
            + "process or another); one instance owns a directory at a time, so give each worker its own directory"
        )
      }
      throw StoreFile.failure("lock", file, code)
    }
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return DirectoryLock(descriptor: descriptor, acquired: (Int64(now.tv_sec), Int(now.tv_nsec)))
  }

  /// Gives the directory up. The lock is dropped explicitly before the descriptor is closed: a child process being
  /// spawned at that moment shares the open file until its `exec`, and a plain `close` would leave the lock held
  /// for that long.
  func release() {
    flock(descriptor, LOCK_UN)
    close(descriptor)
  }

  /// Whether a file last modified at `stamp` was written before the lock was taken.
  func predates(_ stamp: FileStamp) -> Bool {
    (stamp.modified, stamp.modifiedNanoseconds) < acquired
  }
}
