import Foundation

/// One contender: the operations the workloads are made of. Each checks the status (200) and returns the body's
/// byte count (decoded, for ``decode(_:)``), so that the workload can check it too.
package protocol Client: Sendable {
  /// GET, body collected into memory.
  func get(_ path: String) async throws -> Int
  /// GET, body read chunk by chunk and dropped.
  func stream(_ path: String) async throws -> Int
  /// GET, body written to the file at `destination`; returns the file's size.
  func download(_ path: String, to destination: String) async throws -> Int
  /// POST of the file at `source`; returns the response body (the sink's `{"received":N}`).
  func upload(_ source: String, to path: String) async throws -> String
  /// GET of a gzip-encoded body, decoded by the client as it streams; returns the decoded byte count.
  func decode(_ path: String) async throws -> Int
  /// GET of a JSON ``Board``, validated and decoded; returns the board.
  func board(_ path: String) async throws -> Board
  /// `api-mix`: one request of the plan; the transfer-only contenders return the body's byte count, the others the
  /// records they decoded.
  func api(_ call: ApiCall) async throws -> ApiAnswer
  /// Releases connections and threads.
  func shutdown() async
  /// The executor the workload runs on: the transport's loop thread for the `-loop` contenders, `nil` (the global
  /// concurrent executor) for the others.
  var taskExecutor: (any TaskExecutor)? { get }
}

extension Client {
  package func stream(_ path: String) async throws -> Int { throw BenchError("not offered by this contender") }
  package func download(_ path: String, to destination: String) async throws -> Int {
    throw BenchError("not offered by this contender")
  }
  package func upload(_ source: String, to path: String) async throws -> String {
    throw BenchError("not offered by this contender")
  }
  package func decode(_ path: String) async throws -> Int { throw BenchError("not offered by this contender") }
  package func board(_ path: String) async throws -> Board { throw BenchError("not offered by this contender") }
  package func api(_ call: ApiCall) async throws -> ApiAnswer { throw BenchError("not offered by this contender") }
  package func shutdown() async {}
  package var taskExecutor: (any TaskExecutor)? { nil }
}

/// A failed check or an unsupported operation.
package struct BenchError: Error, CustomStringConvertible {
  package let description: String

  package init(_ description: String) {
    self.description = description
  }

  package static func status(_ code: Int) -> BenchError {
    BenchError("status \(code)")
  }
}

/// Writes every byte of `bytes` to `fd`, retrying short writes.
package func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) throws {
  var offset = 0
  while offset < bytes.count {
    let written = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
    if written < 0 {
      if errno == EINTR { continue }
      throw BenchError("write failed: errno \(errno)")
    }
    offset += written
  }
}

/// Opens `path` for writing, truncated.
package func createFile(_ path: String) throws -> Int32 {
  let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
  guard fd >= 0 else { throw BenchError("cannot create \(path): errno \(errno)") }
  return fd
}

/// The size of the file at `path`, or -1.
package func fileSize(_ path: String) -> Int {
  var info = stat()
  return stat(path, &info) == 0 ? Int(info.st_size) : -1
}
