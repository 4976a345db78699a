public import Foundation
public import MalibuCore

/// A request body made by a ``ParameterEncoding``: nothing, bytes in memory, or a `BodySource` the
/// transport streams — together with the `Content-Type` header value that describes it.
///
/// ```swift
/// let body = try MultipartFormEncoder().encodeBody(parameters: ["photo": file], contentType: .multipartFormData)
/// body.contentType     // "multipart/form-data; boundary=Boundary-…"
/// body.contentLength   // exact, before anything is read
/// ```
///
/// A body that is ``isEmpty`` never has a content type: a request without a body gets no `Content-Type` header from
/// its parameters.
public struct EncodedBody: Sendable {
  /// Where the bytes of a body come from.
  public enum Content: Sendable {
    /// Bytes held in memory.
    case data(Data)
    /// A source the transport reads piece by piece (a multipart form with files, say).
    case stream(any BodySource)
  }

  /// The body, or `nil` when there is no body.
  public let content: Content?
  /// The `Content-Type` header value, or `nil` when there is no body (or the encoder names none).
  public let contentType: String?

  /// No body and no header.
  public static let empty = EncodedBody(content: nil, contentType: nil)

  private init(content: Content?, contentType: String?) {
    self.content = content
    self.contentType = content == nil ? nil : contentType
  }

  /// A body in memory, or no body.
  /// - Parameters:
  ///   - data: The bytes; `nil` for no body (the header is then dropped too).
  ///   - contentType: The `Content-Type` header value.
  public init(data: Data?, contentType: String?) {
    self.init(content: data.map(Content.data), contentType: contentType)
  }

  /// A streamed body.
  /// - Parameters:
  ///   - source: Where the transport reads the bytes from.
  ///   - contentType: The `Content-Type` header value.
  public init(stream source: any BodySource, contentType: String?) {
    self.init(content: .stream(source), contentType: contentType)
  }

  /// Whether there is no body.
  public var isEmpty: Bool { content == nil }

  /// The bytes, when the body is held in memory.
  public var data: Data? {
    if case .data(let data) = content { return data }
    return nil
  }

  /// The source, when the body is streamed.
  public var stream: (any BodySource)? {
    if case .stream(let source) = content { return source }
    return nil
  }

  /// The body's length in bytes when known up front: `0` for no body, the byte count in memory, or the source's
  /// `BodySource.length`.
  public var contentLength: UInt64? {
    switch content {
    case nil: return 0
    case .data(let data): return UInt64(data.count)
    case .stream(let source): return source.length
    }
  }

  /// Reads the whole body into memory (for logging, offline storage or tests — transports stream ``stream``).
  /// - Returns: The bytes, or `nil` when there is no body.
  /// - Throws: What the source's reader throws (a file that vanished or changed size, say).
  public func collect() throws -> Data? {
    switch content {
    case nil: return nil
    case .data(let data): return data
    case .stream(let source): return try source.readAll()
    }
  }
}

extension BodySource {
  /// Reads one whole pass into memory with a fixed-size buffer.
  func readAll(bufferSize: Int = 64 * 1024) throws -> Data {
    let reader = try makeReader()
    var result = Data()
    if let expected = length, expected <= UInt64(Int.max) { result.reserveCapacity(Int(expected)) }
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bufferSize, alignment: 1)
    defer { buffer.deallocate() }
    while true {
      let count = try reader.read(into: buffer)
      if count == 0 { return result }
      result.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
    }
  }
}
