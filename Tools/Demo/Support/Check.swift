import Foundation
import Malibu

/// A step that did not see what it expected: the tour stops and the demo exits with status 1.
struct TourFailure: Error, CustomStringConvertible {
  var description: String

  init(_ description: String) {
    self.description = description
  }
}

/// Throws a ``TourFailure`` with `message` unless `condition` holds.
func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws(TourFailure) {
  if !condition {
    throw TourFailure(message())
  }
}

/// Prints one line of what a step did and what came back.
func report(_ line: String) {
  say("  ✓ \(line)")
}

/// Writes `line` to standard output at once, unbuffered, so it keeps its place among other output (`swift run`'s,
/// the server's) when standard output is a pipe.
func say(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Runs `body` and returns its result with the time it took.
func timed<T>(_ body: () async throws -> T) async rethrows -> (T, Duration) {
  let start = ContinuousClock.now
  let result = try await body()
  return (result, ContinuousClock.now - start)
}

extension Duration {
  /// `"3 ms"`, `"1.25 s"`.
  var shortDescription: String {
    let milliseconds = Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    if milliseconds < 1000 {
      return "\(Int(milliseconds.rounded())) ms"
    }
    return String(format: "%.2f s", milliseconds / 1000)
  }
}

extension Int {
  /// `"583 B"`, `"12.0 KiB"`.
  var byteCount: String {
    self < 1024 ? "\(self) B" : String(format: "%.1f KiB", Double(self) / 1024)
  }
}

/// Writes `line` to standard error at once (standard output may be buffered).
func printError(_ line: String) {
  FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// The error `promise` is rejected with, or `nil` when it succeeds.
func failure<Value>(of promise: Promise<Value>) async -> (any Error)? {
  do {
    _ = try await promise.value
    return nil
  } catch {
    return error
  }
}
