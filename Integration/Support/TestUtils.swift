import Foundation
import HTTPTypes
@_spi(Malibu) import MalibuCore
import MalibuCurl
import MalibuTransport
import MalibuURLSession
import Testing

/// The transports every scenario runs against.
enum Backend: String, CaseIterable, Sendable, CustomTestStringConvertible {
  case curl
  case urlSession

  /// One transport per backend for the whole test process, as an application would hold it.
  var transport: any Transport {
    switch self {
    case .curl: return Backend.curlTransport
    case .urlSession: return Backend.urlSessionTransport
    }
  }

  var testDescription: String { rawValue }

  private static let curlTransport = CurlTransport()
  private static let urlSessionTransport = URLSessionTransport()
}

/// The result of one exchange, body collected.
struct Exchange: Sendable {
  let head: HTTPResponse
  let data: Data
  let url: URL?

  var status: Int { head.status.code }
  var text: String { String(decoding: data, as: UTF8.self) }

  /// The body as a JSON object (httpbin's echo endpoints).
  func json() throws -> [String: any Sendable] {
    let object = try JSONSerialization.jsonObject(with: data)
    return try #require(object as? [String: any Sendable], "not a JSON object: \(text.prefix(200))")
  }
}

extension Backend {
  /// Sends a request and collects the body.
  func exchange(
    _ method: HTTPRequest.Method = .get,
    _ url: URL,
    headers: [String: String] = [:],
    body: RequestBody? = nil,
    options: TransferOptions = TransferOptions(),
    limit: Int = 256 << 20
  ) async throws -> Exchange {
    var request = HTTPRequest(method: method, url: url)
    for (name, value) in headers { request.headerFields[HTTPField.Name(name)!] = value }
    let (head, data, finalURL) = try await transport.data(for: request, body: body, options: options, upTo: limit)
    return Exchange(head: head, data: data, url: finalURL)
  }
}

extension Backend {
  /// Sends a GET (or another bodiless request described by `headers`) and collects the body.
  func exchange(
    _ url: URL,
    headers: [String: String] = [:],
    options: TransferOptions = TransferOptions(),
    limit: Int = 256 << 20
  ) async throws -> Exchange {
    try await exchange(.get, url, headers: headers, options: options, limit: limit)
  }
}

/// Base URLs of the local servers.
enum Servers {
  static func httpbin(_ path: String) async throws -> URL {
    try await URL(string: path, relativeTo: LocalServers.shared.httpbin())!.absoluteURL
  }

  static func nginx(_ path: String) async throws -> URL {
    try await URL(string: path, relativeTo: LocalServers.shared.nginx())!.absoluteURL
  }

  /// The fault-injection server (see ``LocalServers/faults()``).
  static func faults(_ path: String) async throws -> URL {
    try await URL(string: path, relativeTo: LocalServers.shared.faults())!.absoluteURL
  }

  /// nginx's TLS port (see ``LocalServers/nginxTLS()``).
  static func nginxTLS(_ path: String) async throws -> URL {
    try await URL(string: path, relativeTo: LocalServers.shared.nginxTLS())!.absoluteURL
  }
}

/// Expects a `TransportError` with the given code.
func expectTransportError(
  _ code: TransportError.Code,
  sourceLocation: SourceLocation = #_sourceLocation,
  _ body: () async throws -> some Any
) async {
  do {
    let value = try await body()
    Issue.record("expected TransportError.\(code), got a value: \(value)", sourceLocation: sourceLocation)
  } catch let error as TransportError {
    #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    #expect(!error.message.isEmpty, sourceLocation: sourceLocation)
  } catch {
    Issue.record("expected TransportError.\(code), got \(error)", sourceLocation: sourceLocation)
  }
}

/// The process's resident memory, from /proc/self/status.
func residentBytes() -> Int {
  guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
  for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
    let kilobytes = line.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
    return kilobytes * 1024
  }
  return 0
}

/// Samples the resident memory every 5 ms while `body` runs and returns the peak growth over the start.
func peakMemoryGrowth<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> (T, Int) {
  let baseline = residentBytes()
  let peak = Locked(baseline)
  let sampler = Task {
    while !Task.isCancelled {
      let now = residentBytes()
      peak.withLock { $0 = max($0, now) }
      try? await Task.sleep(for: .milliseconds(5))
    }
  }
  defer { sampler.cancel() }
  let value = try await body()
  sampler.cancel()
  let now = residentBytes()
  return (value, max(peak.withLock { $0 }, now) - baseline)
}

/// Threads of this process.
func threadCount() -> Int {
  (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? -1
}

/// Records progress values and checks they never go back.
final class ProgressLog: Sendable {
  private let values = Locked<[TransferProgress]>([])

  var handler: @Sendable (TransferProgress) -> Void {
    { [values] progress in values.withLock { $0.append(progress) } }
  }

  var all: [TransferProgress] { values.withLock { $0 } }

  var isMonotonic: Bool {
    let all = self.all
    return zip(all, all.dropFirst()).allSatisfy { $0.uploaded <= $1.uploaded && $0.downloaded <= $1.downloaded }
  }
}

/// A loopback port with nothing listening on it.
func refusedPort() throws -> UInt16 {
  try #require(LoopbackSocket.freePort())
}
