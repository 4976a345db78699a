import Foundation
import MalibuCore
import Testing

/// A file in a fresh temporary directory, removed when the value is released.
final class TemporaryFile: Sendable {
  let url: URL
  private let directory: URL

  init(contents: Data, name: String = "file.bin") throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("malibu-encoding-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    url = directory.appendingPathComponent(name)
    try contents.write(to: url)
  }

  deinit {
    try? FileManager.default.removeItem(at: directory)
  }
}

/// The bytes as text, for readable failures.
func text(_ data: Data?) -> String {
  data.map { String(decoding: $0, as: UTF8.self) } ?? "<nil>"
}

/// Runs `body` and returns the `NetworkError` it throws (recording an issue when it throws nothing or another error).
func networkError(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) -> NetworkError? {
  do {
    try body()
    Issue.record("expected a NetworkError, nothing was thrown", sourceLocation: sourceLocation)
  } catch let error as NetworkError {
    return error
  } catch {
    Issue.record("expected a NetworkError, got \(error)", sourceLocation: sourceLocation)
  }
  return nil
}
