import Foundation
import HTTPTypes
import MalibuCore
import MalibuTestSupport
import MalibuTransport
import Testing

@testable import MalibuURLSession

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Every suite of this target runs inside this one, one test at a time: the resource test counts the process's file
/// descriptors and threads, and the timeout tests should not compete for the two cores.
@Suite(.serialized) struct URLSessionTransportTests {}

/// A server, a transport, and helpers to talk to them.
final class Fixture: Sendable {
  let server: TestServer
  let transport: URLSessionTransport

  init() throws {
    server = try TestServer()
    transport = URLSessionTransport()
  }

  deinit {
    transport.shutdown()
    server.stop()
  }

  func request(
    _ method: HTTPRequest.Method = .get,
    _ path: String,
    host: String = "127.0.0.1",
    headers: [(String, String)] = []
  ) -> HTTPRequest {
    var fields = HTTPFields()
    for (name, value) in headers { fields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
    return HTTPRequest(method: method, url: server.url(path, host: host), headerFields: fields)
  }

  /// Sends and collects the whole body.
  func fetch(
    _ request: HTTPRequest,
    body: RequestBody? = nil,
    options: TransferOptions = TransferOptions(),
    limit: Int = 256 << 20
  ) async throws -> (head: HTTPResponse, body: Data, url: URL?) {
    let (head, data, url) = try await transport.data(for: request, body: body, options: options, upTo: limit)
    return (head, data, url)
  }

  /// The last request the server received.
  var last: RecordedRequest? { server.requests.last }
}

/// The ``TransportError`` an operation ends with, or `nil` (and a recorded issue) when it ends otherwise.
func transportError(
  sourceLocation: SourceLocation = #_sourceLocation,
  _ operation: () async throws -> Void
) async -> TransportError? {
  do {
    try await operation()
    Issue.record("expected a TransportError, but the operation succeeded", sourceLocation: sourceLocation)
  } catch let error as TransportError {
    return error
  } catch {
    Issue.record("expected a TransportError, got \(error)", sourceLocation: sourceLocation)
  }
  return nil
}

/// Options with only the given timeouts.
func timeouts(connect: Duration? = nil, idle: Duration? = nil, total: Duration? = nil) -> TransferOptions {
  TransferOptions(timeouts: Timeouts(connect: connect, idle: idle, total: total))
}

/// A body source in memory, with or without announcing its length, optionally failing after some bytes.
struct MemorySource: BodySource {
  let data: Data
  let announcesLength: Bool
  var failAfter: Int?

  var length: UInt64? { announcesLength ? UInt64(data.count) : nil }

  func makeReader() throws -> any BodyReader { MemoryReader(data: data, failAfter: failAfter) }

  struct Broken: Error, CustomStringConvertible {
    var description: String { "the source broke on purpose" }
  }
}

final class MemoryReader: BodyReader {
  private let data: Data
  private let failAfter: Int?
  private var offset = 0

  init(data: Data, failAfter: Int?) {
    self.data = data
    self.failAfter = failAfter
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    if let failAfter, offset >= failAfter { throw MemorySource.Broken() }
    let count = min(buffer.count, data.count - offset, 7919)
    guard count > 0 else { return 0 }
    data.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[offset..<offset + count])) }
    offset += count
    return count
  }
}

/// An async sequence of chunks that are produced slowly.
func chunks(of data: Data, size: Int, delay: Duration = .zero) -> AsyncThrowingStream<Data, any Error> {
  AsyncThrowingStream { continuation in
    let task = Task {
      var offset = 0
      while offset < data.count {
        if delay > .zero { try? await Task.sleep(for: delay) }
        let end = min(offset + size, data.count)
        continuation.yield(data[offset..<end])
        offset = end
      }
      continuation.finish()
    }
    continuation.onTermination = { _ in task.cancel() }
  }
}

/// The process's open file descriptors and threads (Linux `/proc`).
func processResources() -> (fds: Int, threads: Int) {
  let fds = openFileDescriptors()
  let threads = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? -1
  return (fds, threads)
}

/// A value of `/proc/self/status` in KiB (`VmRSS`, `VmHWM`).
func memoryStatus(_ key: String) -> Int {
  guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return -1 }
  for line in text.split(separator: "\n") where line.hasPrefix(key + ":") {
    return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? -1
  }
  return -1
}
