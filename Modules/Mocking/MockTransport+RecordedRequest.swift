public import Foundation
public import HTTPTypes
@_spi(Malibu) internal import MalibuCore
internal import MalibuTransport

extension MockTransport {
  /// A request as the transport received it: the head and the body's bytes.
  public struct RecordedRequest: Sendable {
    /// The request head: method, URL parts and header fields.
    public let head: HTTPRequest
    /// The whole body, read from bytes, a file or a stream; `nil` when the request had none (or it could not be
    /// read).
    public let body: Data?

    /// Creates a recorded request.
    /// - Parameters:
    ///   - head: The request head.
    ///   - body: The body's bytes.
    public init(head: HTTPRequest, body: Data?) {
      self.head = head
      self.body = body
    }

    /// The method.
    public var method: HTTPRequest.Method { head.method }
    /// The path, query included.
    public var path: String? { head.path }
    /// The absolute URL, when the head has one.
    public var url: URL? { head.url }
    /// The header fields.
    public var headerFields: HTTPFields { head.headerFields }

    static func collect(_ body: RequestBody?) async throws -> Data? {
      guard let body else { return nil }
      switch body.storage {
      case .data(let data):
        return data
      case .source(let source):
        return try read(source)
      case .stream(let stream):
        let collected = Locked(Data())
        try await stream.forEachChunk { chunk in
          try Task.checkCancellation()
          collected.withLock { $0.append(chunk) }
        }
        return collected.withLock { $0 }
      }
    }

    private static func read(_ source: any BodySource) throws -> Data {
      let reader = try source.makeReader()
      var data = Data()
      if let length = source.length { data.reserveCapacity(Int(clamping: length)) }
      var buffer = [UInt8](repeating: 0, count: 64 * 1024)
      while true {
        let count = try buffer.withUnsafeMutableBytes { try reader.read(into: $0) }
        if count == 0 { return data }
        data.append(contentsOf: buffer[..<count])
      }
    }
  }
}
