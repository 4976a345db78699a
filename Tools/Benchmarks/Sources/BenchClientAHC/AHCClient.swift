import AsyncHTTPClient
import BenchSupport
import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import NIOHTTPCompression
import NIOSSL

/// `ahc`: async-http-client's `HTTPClient` with its async API; one shared client whose HTTP/1.1 connection pool is
/// sized to the workload's concurrency (or `--pool`), on the default event loop group.
struct AHCClient: Client {
  let client: HTTPClient
  let base: String

  init(_ options: Options, decompression: Bool) {
    var configuration = HTTPClient.Configuration()
    configuration.connectionPool = .init(
      idleTimeout: .seconds(60),
      concurrentHTTP1ConnectionsPerHostSoftLimit: options.pool ?? max(8, options.concurrency)
    )
    configuration.decompression = decompression ? .enabled(limit: .none) : .disabled
    if let caFile = options.caFile {
      var tls = TLSConfiguration.makeClientConfiguration()
      tls.trustRoots = .file(caFile)
      configuration.tlsConfiguration = tls
    }
    client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    base = options.base
  }

  private func execute(_ request: HTTPClientRequest) async throws -> HTTPClientResponse {
    let response = try await client.execute(request, timeout: .seconds(120))
    guard response.status.code == 200 else { throw BenchError.status(Int(response.status.code)) }
    return response
  }

  func get(_ path: String) async throws -> Int {
    let response = try await execute(HTTPClientRequest(url: base + path))
    return try await response.body.collect(upTo: 1 << 30).readableBytes
  }

  func stream(_ path: String) async throws -> Int {
    let response = try await execute(HTTPClientRequest(url: base + path))
    var count = 0
    for try await buffer in response.body {
      count += buffer.readableBytes
    }
    return count
  }

  func download(_ path: String, to destination: String) async throws -> Int {
    let response = try await execute(HTTPClientRequest(url: base + path))
    let fd = try createFile(destination)
    defer { close(fd) }
    for try await buffer in response.body {
      try buffer.withUnsafeReadableBytes { try writeAll(fd, $0) }
    }
    return fileSize(destination)
  }

  /// The request body is the file read in 256 KiB `ByteBuffer`s as AHC asks for them, with a known length.
  func upload(_ source: String, to path: String) async throws -> String {
    var request = HTTPClientRequest(url: base + path)
    request.method = .POST
    request.headers.add(name: "Content-Type", value: "application/octet-stream")
    let size = fileSize(source)
    guard size >= 0 else { throw BenchError("cannot read \(source)") }
    request.body = .stream(FileChunks(path: source), length: .known(Int64(size)))
    let response = try await execute(request)
    let body = try await response.body.collect(upTo: 1 << 20)
    return String(buffer: body)
  }

  /// The client was created with decompression on: AHC inflates as the body streams.
  func decode(_ path: String) async throws -> Int {
    try await stream(path)
  }

  /// `api-mix`: the request with the plan's header values (a POST encodes its `Order` with `JSONEncoder`), the body
  /// collected and decoded with `JSONDecoder` into `[Item]` or the `Receipt`.
  func api(_ call: ApiCall) async throws -> ApiAnswer {
    var request = HTTPClientRequest(url: base + call.path)
    request.headers.add(name: "Accept", value: "application/json")
    request.headers.add(name: "Accept-Language", value: call.language)
    request.headers.add(name: "X-Request-Id", value: call.requestID)
    if let order = call.order {
      request.method = .POST
      request.headers.add(name: "Content-Type", value: "application/json")
      request.body = .bytes(ByteBuffer(data: try JSONEncoder().encode(order)))
    }
    let response = try await execute(request)
    let body = try await response.body.collect(upTo: 1 << 20)
    if call.isPost {
      _ = try JSONDecoder().decode(Receipt.self, from: body)
      return .decoded(1)
    }
    return .decoded(try JSONDecoder().decode([Item].self, from: body).count)
  }

  func shutdown() async {
    try? await client.shutdown()
  }
}

/// A file read chunk by chunk into `ByteBuffer`s, for AHC's streamed request body.
struct FileChunks: AsyncSequence, Sendable {
  typealias Element = ByteBuffer
  let path: String

  func makeAsyncIterator() -> Iterator {
    Iterator(fd: open(path, O_RDONLY))
  }

  final class Iterator: AsyncIteratorProtocol {
    private let fd: Int32
    private let allocator = ByteBufferAllocator()

    init(fd: Int32) {
      self.fd = fd
    }

    deinit {
      if fd >= 0 { close(fd) }
    }

    func next() async throws -> ByteBuffer? {
      guard fd >= 0 else { throw BenchError("cannot open the upload file") }
      var buffer = allocator.buffer(capacity: 256 << 10)
      let count = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 256 << 10) { bytes in
        let result = read(fd, bytes.baseAddress, bytes.count)
        guard result >= 0 else { throw BenchError("read failed: errno \(errno)") }
        return result
      }
      return count == 0 ? nil : buffer
    }
  }
}
