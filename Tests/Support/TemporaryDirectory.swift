public import Foundation

/// Runs `body` with a new, empty directory under the system's temporary directory, and removes the directory after.
/// - Parameters:
///   - prefix: The start of the directory's name, for finding a leftover.
///   - body: The work, given the directory.
/// - Returns: What `body` returns.
public func withTemporaryDirectory<T>(
  named prefix: String = "malibu",
  _ body: (URL) async throws -> T
) async throws -> T {
  let directory = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
  try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(at: directory) }
  return try await body(directory)
}
