import BenchSupport
import Foundation
import Malibu

/// `malibu-curl` and `malibu-urlsession`: a Malibu ``Transport`` used directly, with its own streaming and file APIs
/// (`data(for:)` collects into one buffer, `send` streams the ``ResponseBody``, `RequestBody.file` uploads).
struct TransportClient: Client {
  let transport: any Transport
  let authority: String
  var scheme = "http"
  /// `TransferOptions()`, trusting `--ca` when given (the https `api-mix` rows).
  var options = TransferOptions()
  let close: @Sendable () -> Void
  var taskExecutor: (any TaskExecutor)? = nil
  /// The header fields of every request: none, or the facade's defaults with `--request-fields facade`.
  var fields = HTTPFields()

  /// A CurlTransport whose connection limits fit the workload's concurrency (or `--pool`); with `onLoop` (the `-loop` contenders),
  /// the workload runs on the transport's loop thread (`CurlTransport.taskExecutor`).
  static func curl(_ options: Options, onLoop: Bool = false) -> TransportClient {
    var configuration = CurlTransport.Configuration()
    // `--pool` (fan-out) bounds the connections below the tasks in flight; otherwise one connection per task.
    let connections = options.pool ?? options.concurrency
    configuration.maximumConnectionsPerHost = options.pool ?? max(configuration.maximumConnectionsPerHost, connections)
    configuration.maximumIdleConnections = max(configuration.maximumIdleConnections, connections)
    // `BENCH_CURL_BUFFER` (bytes): another receive buffer than the default, to choose the default by measurement.
    if let size = ProcessInfo.processInfo.environment["BENCH_CURL_BUFFER"].flatMap({ Int($0) }) {
      configuration.receiveBufferSize = size
    }
    let transport = CurlTransport(configuration: configuration)
    var client = TransportClient(
      transport: transport,
      authority: options.authority,
      close: { transport.shutdown() },
      taskExecutor: onLoop ? transport.taskExecutor : nil,
      fields: fields(options)
    )
    client.scheme = options.scheme
    client.options.tls.caFile = options.caFile
    return client
  }

  /// A URLSessionTransport whose session allows as many connections as the workload keeps in flight.
  static func urlSession(_ options: Options) -> TransportClient {
    let transport = URLSessionTransport(configuration: URLSessionClient.configuration(options))
    return TransportClient(
      transport: transport,
      authority: options.authority,
      close: { transport.shutdown() },
      fields: fields(options)
    )
  }

  /// The fields every request sends: the facade's defaults with `--request-fields facade`, none otherwise.
  private static func fields(_ options: Options) -> HTTPFields {
    options.sendsFacadeFields ? DefaultHeaders.fields : HTTPFields()
  }

  /// A MockTransport answering GET `/100b.bin` with 100 bytes and GET `/1k.json` with ``Board/sample``: no network
  /// and no thread hop, so that `mock` and `facade-mock` measure what the facade costs in CPU alone (the `json-seq`
  /// rows of `make bench`, and callgrind by hand).
  static func mock(_ options: Options) -> TransportClient {
    let transport = MockTransport()
    transport.stub(.get, "/100b.bin", reply: .init(body: Data(repeating: 0x61, count: 100)))
    transport.stub(
      .get,
      "/1k.json",
      reply: .init(headerFields: [.contentType: "application/json"], body: Board.sampleJSON)
    )
    return TransportClient(transport: transport, authority: options.authority, close: {})
  }

  private func head(_ method: HTTPRequest.Method, _ path: String) -> HTTPRequest {
    HTTPRequest(method: method, scheme: scheme, authority: authority, path: path, headerFields: fields)
  }

  /// GET with the body collected; the status must be 200.
  private func collect(_ path: String, upTo maxBytes: Int) async throws -> Data {
    let (response, data, _) = try await transport.data(
      for: head(.get, path),
      body: nil,
      options: options,
      upTo: maxBytes
    )
    guard response.status.code == 200 else { throw BenchError.status(response.status.code) }
    return data
  }

  /// `api-mix`, transfer only: the request with the plan's header values (and its JSON bytes for a POST), the body
  /// collected and counted, no decoding.
  func api(_ call: ApiCall) async throws -> ApiAnswer {
    var request = head(call.isPost ? .post : .get, call.path)
    request.headerFields[.accept] = "application/json"
    request.headerFields[.acceptLanguage] = call.language
    request.headerFields[HTTPField.Name("X-Request-Id")!] = call.requestID
    if call.isPost { request.headerFields[.contentType] = "application/json" }
    let (response, data, _) = try await transport.data(
      for: request,
      body: call.body.map { RequestBody.data($0) },
      options: options,
      upTo: 1 << 20
    )
    guard response.status.code == 200 else { throw BenchError.status(response.status.code) }
    return .transferred(data.count)
  }

  func get(_ path: String) async throws -> Int {
    try await collect(path, upTo: 1 << 30).count
  }

  func board(_ path: String) async throws -> Board {
    try JSONDecoder().decode(Board.self, from: try await collect(path, upTo: 1 << 20))
  }

  func stream(_ path: String) async throws -> Int {
    let response = try await transport.send(head(.get, path), body: nil, options: TransferOptions())
    guard response.head.status.code == 200 else { throw BenchError.status(response.head.status.code) }
    var count = 0
    for try await chunk in response.body {
      count += chunk.count
    }
    return count
  }

  func download(_ path: String, to destination: String) async throws -> Int {
    let response = try await transport.send(head(.get, path), body: nil, options: TransferOptions())
    guard response.head.status.code == 200 else { throw BenchError.status(response.head.status.code) }
    let fd = try createFile(destination)
    defer { Foundation.close(fd) }
    for try await chunk in response.body {
      try chunk.withUnsafeBytes { try writeAll(fd, $0) }
    }
    return fileSize(destination)
  }

  func upload(_ source: String, to path: String) async throws -> String {
    var request = head(.post, path)
    request.headerFields[.contentType] = "application/octet-stream"
    let (response, data, _) = try await transport.data(
      for: request,
      body: try RequestBody.file(URL(fileURLWithPath: source)),
      options: TransferOptions(),
      upTo: 1 << 20
    )
    guard response.status.code == 200 else { throw BenchError.status(response.status.code) }
    return String(decoding: data, as: UTF8.self)
  }

  /// Decompression is on by default (`TransferOptions.decompression`): the transport inflates as the body streams.
  func decode(_ path: String) async throws -> Int {
    try await stream(path)
  }

  func shutdown() async {
    close()
  }
}
