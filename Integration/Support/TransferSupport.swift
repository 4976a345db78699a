import Foundation
import HTTPTypes
import Malibu
import MalibuTransport

/// An endpoint whose requests carry absolute URLs (the local servers' ports are known only at run time).
struct AbsoluteEndpoint: RequestConvertible {
  static let baseUrl: (any URLStringConvertible)? = nil
  static let headers: [String: String] = [:]

  let request: Request

  init(_ url: URL) {
    request = .get(url.absoluteString)
  }
}

/// Files a test writes into nginx's document root, served at `/<name>` and `/identity/<name>`.
enum ServedFiles {
  /// nginx's document root, starting nginx on first use.
  static func root() async throws -> URL {
    _ = try await LocalServers.shared.nginx()
    return try LocalServers.Configuration.default().stateDirectory.appendingPathComponent("www")
  }

  /// Writes `data` as `name` (replacing the file atomically, so nginx never serves half of it).
  static func write(_ data: Data, named name: String) async throws -> URL {
    let file = try await root().appendingPathComponent(name)
    try data.write(to: file, options: .atomic)
    return file
  }

  /// A file of `size` bytes, the start of `100m.bin`, written in 1 MiB pieces.
  static func writePrefixOfLarge(_ size: Int, named name: String) async throws -> URL {
    let root = try await root()
    let file = root.appendingPathComponent(name)
    let source = try FileHandle(forReadingFrom: root.appendingPathComponent(StaticContent.large.name))
    defer { try? source.close() }
    _ = FileManager.default.createFile(atPath: file.path, contents: nil)
    let target = try FileHandle(forWritingTo: file)
    defer { try? target.close() }
    var left = size
    while left > 0, let piece = try source.read(upToCount: min(left, 1 << 20)), !piece.isEmpty {
      try target.write(contentsOf: piece)
      left -= piece.count
    }
    return file
  }
}

/// Whether two files hold the same bytes, read 1 MiB at a time.
func sameBytes(_ first: URL, _ second: URL) throws -> Bool {
  let one = try FileHandle(forReadingFrom: first)
  let two = try FileHandle(forReadingFrom: second)
  defer {
    try? one.close()
    try? two.close()
  }
  while true {
    let a = try one.read(upToCount: 1 << 20) ?? Data()
    let b = try two.read(upToCount: 1 << 20) ?? Data()
    if a != b { return false }
    if a.isEmpty { return true }
  }
}

/// The size of a file, or `nil` when there is none.
func fileSize(_ url: URL) -> Int? {
  (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size].flatMap { ($0 as? NSNumber)?.intValue }
}

/// A transport that hands over the first `limit` bytes of every body and then fails it with `connectionReset`, as a
/// network cut would: the transfer before it is real.
struct CuttingTransport: Transport {
  let base: any Transport
  let limit: Int

  func send(_ request: HTTPRequest, body: RequestBody?, options: TransferOptions) async throws -> TransportResponse {
    var response = try await base.send(request, body: body, options: options)
    response.body = ResponseBody(chunks: Cut(body: response.body, limit: limit))
    return response
  }

  /// The body, cut after `limit` bytes.
  struct Cut: AsyncSequence, Sendable {
    typealias Element = Data
    let body: ResponseBody
    let limit: Int

    func makeAsyncIterator() -> Iterator {
      Iterator(body: body, inner: body.makeAsyncIterator(), left: limit)
    }

    struct Iterator: AsyncIteratorProtocol {
      let body: ResponseBody
      var inner: ResponseBody.Iterator
      var left: Int

      mutating func next() async throws -> Data? {
        guard left > 0 else {
          body.cancel()
          throw TransportError(code: .connectionReset, message: "cut by the test")
        }
        guard let chunk = try await inner.next() else { return nil }
        defer { left -= chunk.count }
        return chunk.count > left ? chunk.prefix(left) : chunk
      }
    }
  }
}

/// The `NetworkError` a promise was rejected with, or `nil` when it was fulfilled.
func networkError<T: Sendable>(_ promise: Promise<T>) async -> NetworkError? {
  do {
    _ = try await promise.value
    return nil
  } catch {
    return error as? NetworkError
  }
}
