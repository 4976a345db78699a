import Dispatch
import Foundation
@_spi(Malibu) import MalibuCore
import MalibuTransport

/// How one hop's request body reaches URLSession, and what to clean up once the hop is over.
///
/// - `.data` bodies go to `uploadTask(with:from:)`: an exact `Content-Length`, and on Linux no form content type
///   added behind the caller's back (FoundationNetworking adds one to POSTs whose body sits in `httpBody`).
/// - A `FileBody` goes to `uploadTask(with:fromFile:)`, read from disk as it is sent.
/// - Anything else is pulled through an `InputStream`. On Linux two facts shape this: FoundationNetworking sends a
///   stream chunked whatever the caller says (it even adds `Transfer-Encoding: chunked` next to a `Content-Length`
///   header), and it reads the stream synchronously on a queue every URLSession of the process shares. So a source
///   of known length, and any async stream, is first spooled — into memory up to ``inMemoryLimit``, into a temporary
///   file above — and sent from there with its exact length; only sources of unknown length (and gzip-compressed
///   bodies) are streamed, chunked. On Apple platforms every such body is streamed, with a `Content-Length` header
///   when the length is known.
struct Upload: Sendable {
  enum Body: Sendable {
    case none
    case data(Data)
    case file(URL)
    case stream(length: UInt64?, source: @Sendable () throws -> any ChunkSource)
  }

  /// Bodies of known length up to this size are spooled into memory rather than into a temporary file.
  static let inMemoryLimit: UInt64 = 1 << 20

  var body: Body
  /// Whether the body is gzip-compressed on the way (`Content-Encoding: gzip`).
  var gzip = false
  /// The feed of a streamed body: reading it may wait for the producer, and it can be read only once.
  var feed: StreamFeed?
  /// A spooled copy of the body, removed by ``cleanUp()``.
  var temporaryFile: URL?

  /// Whether a new input stream can be made for a retried or redirected send.
  var isReplayable: Bool { feed == nil }

  /// Removes the temporary file and stops the producer of a streamed body.
  func cleanUp(_ reason: @autoclosure () -> any Error) {
    feed?.close(reason())
    if let temporaryFile { try? FileManager.default.removeItem(at: temporaryFile) }
  }

  /// Decides how to send `body`, spooling it when the platform needs that.
  static func prepare(_ body: RequestBody?, compression: RequestCompression) async throws(TransportError) -> Upload {
    guard let body else { return Upload(body: .none) }
    switch body.storage {
    case .data(let data):
      if data.isEmpty { return Upload(body: .none) }
      if compression.isEnabled {
        return Upload(body: .stream(length: nil) { UploadChunks(GzipUploadSource(DataUploadSource(data))) }, gzip: true)
      }
      return Upload(body: .data(data))
    case .source(let source):
      if compression.isEnabled {
        return Upload(
          body: .stream(length: nil) { UploadChunks(GzipUploadSource(ReaderUploadSource(try source.makeReader()))) },
          gzip: true
        )
      }
      if let file = source as? FileBody { return Upload(body: .file(file.url)) }
      #if canImport(FoundationNetworking)
      if let length = source.length { return try await spool(source, length: length) }
      return Upload(body: .stream(length: nil) { UploadChunks(ReaderUploadSource(try source.makeReader())) })
      #else
      return Upload(body: .stream(length: source.length) { UploadChunks(ReaderUploadSource(try source.makeReader())) })
      #endif
    case .stream(let stream):
      #if canImport(FoundationNetworking)
      // FoundationNetworking reads body streams synchronously on a queue that every URLSession of the process
      // shares (measured: a read waiting for its producer stalls all of them), so a body whose bytes come from an
      // async producer is read to the end first.
      let spooled = try await spool(stream)
      return compression.isEnabled ? spooled.gzipped() : spooled
      #else
      let feed = StreamFeed()
      feed.start(stream)
      if compression.isEnabled {
        return Upload(body: .stream(length: nil) { feed.chunks(gzip: true) }, gzip: true, feed: feed)
      }
      return Upload(body: .stream(length: stream.length) { feed.chunks(gzip: false) }, feed: feed)
      #endif
    }
  }

  /// The same body, gzip-compressed as it is sent.
  private func gzipped() -> Upload {
    var upload = self
    upload.gzip = true
    switch body {
    case .none: upload.body = .stream(length: nil) { UploadChunks(GzipUploadSource(DataUploadSource(Data()))) }
    case .data(let data): upload.body = .stream(length: nil) { UploadChunks(GzipUploadSource(DataUploadSource(data))) }
    case .file(let url):
      upload.body = .stream(length: nil) {
        UploadChunks(GzipUploadSource(ReaderUploadSource(try FileBody(url: url).makeReader())))
      }
    case .stream: break
    }
    return upload
  }
}

extension Upload {
  fileprivate static func spool(_ source: any BodySource, length: UInt64) async throws(TransportError) -> Upload {
    let result = await offloaded { () throws -> Upload in
      let reader = try source.makeReader()
      var spool = try Spool(expected: length)
      var buffer = [UInt8](repeating: 0, count: 64 * 1024)
      while true {
        let count = try buffer.withUnsafeMutableBytes { try reader.read(into: $0) }
        if count == 0 { break }
        try buffer.withUnsafeBytes { try spool.append(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
      }
      return try spool.finish()
    }
    do {
      return try result.get()
    } catch let error as TransportError {
      throw error
    } catch {
      throw TransportError(
        code: .invalidRequest,
        message: "reading the request body failed: \(error)",
        underlyingError: error
      )
    }
  }

  fileprivate static func spool(_ stream: AsyncStreamBody) async throws(TransportError) -> Upload {
    do {
      let spool = Locked<Spool?>(try Spool(expected: stream.length))
      try await stream.forEachChunk { chunk in
        try spool.withLock { spool in try chunk.withUnsafeBytes { try spool?.append($0) } }
      }
      // A cancelled producer may simply stop early: never send what it left behind.
      try Task.checkCancellation()
      guard let upload = try spool.withLock({ spool in try spool?.finish() }) else {
        throw TransportError(code: .invalidRequest, message: "the request body stream could not be spooled")
      }
      return upload
    } catch let error as TransportError {
      throw error
    } catch is CancellationError {
      throw TransportError(code: .cancelled, message: "the transfer was cancelled")
    } catch {
      throw TransportError(
        code: .invalidRequest,
        message: "the request body stream failed: \(error)",
        underlyingError: error
      )
    }
  }

  private static func offloaded<Value: Sendable>(
    _ work: @escaping @Sendable () throws -> Value
  ) async -> Result<Value, any Error> {
    await withCheckedContinuation { continuation in
      DispatchQueue.global().async { continuation.resume(returning: Result { try work() }) }
    }
  }
}

/// A body copied into memory or, past ``Upload/inMemoryLimit``, into a temporary file; when its length was announced,
/// the copy must match it.
private struct Spool: Sendable {
  private let expected: UInt64?
  private var data = Data()
  private var file: (url: URL, handle: FileHandle)?
  private var written: UInt64 = 0

  init(expected: UInt64?) throws {
    self.expected = expected
    if let expected, expected > Upload.inMemoryLimit {
      try moveToFile()
    } else if let expected {
      data.reserveCapacity(Int(expected))
    }
  }

  private mutating func moveToFile() throws {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("malibu-upload-\(UUID().uuidString)")
    guard FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600])
    else {
      throw TransportError(code: .invalidRequest, message: "cannot create a temporary file at '\(url.path)'")
    }
    let handle = try FileHandle(forWritingTo: url)
    file = (url, handle)
    if !data.isEmpty {
      try handle.write(contentsOf: data)
      data = Data()
    }
  }

  mutating func append(_ bytes: UnsafeRawBufferPointer) throws {
    written += UInt64(bytes.count)
    if let expected, written > expected { throw mismatch() }
    if file == nil && written > Upload.inMemoryLimit { try moveToFile() }
    if let file {
      try file.handle.write(contentsOf: Data(bytes))
    } else {
      data.append(contentsOf: bytes)
    }
  }

  func finish() throws -> Upload {
    if let file { try file.handle.close() }
    if let expected, written != expected { throw mismatch() }
    if let file { return Upload(body: .file(file.url), temporaryFile: file.url) }
    return Upload(body: data.isEmpty ? .none : .data(data))
  }

  private func mismatch() -> TransportError {
    if let file {
      try? file.handle.close()
      try? FileManager.default.removeItem(at: file.url)
    }
    return TransportError(
      code: .invalidRequest,
      message: "the request body announced \(expected ?? 0) bytes but produced "
        + (written > expected ?? 0 ? "more" : "\(written)")
    )
  }
}
