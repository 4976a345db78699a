public import Foundation
public import MalibuCore

extension MultipartFormData: BodySource {
  /// ``contentLength``, always known: the `BodySource` length a transport sends as `Content-Length`.
  public var length: UInt64? { contentLength }

  /// A reader over the whole body: part headers from memory, files from disk in the reader's buffer-sized pieces,
  /// one file open at a time. Each call starts a new pass (a transport re-sends the body after a 307 redirect).
  /// - Returns: A reader at the first byte.
  /// - Throws: ``recordedError`` when appending failed; `NetworkError` with code
  ///   `NetworkError.Code.encodingFailed` when a file has vanished or changed size since it was
  ///   appended. While reading, a file that changes size ends the pass with the same code, and so does a file that
  ///   holds the delimiter of a boundary given to ``init(boundary:)`` (before the piece holding it is returned).
  public func makeReader() throws(NetworkError) -> any BodyReader {
    if let recordedError { throw recordedError }
    for part in parts {
      guard case .file(let file) = part.content else { continue }
      let size: UInt64?
      do {
        size = try FileBody(url: file.url).length
      } catch {
        throw NetworkError(code: .encodingFailed, message: "multipart part '\(part.name)': \(error.message)")
      }
      guard size == file.length else {
        throw NetworkError(
          code: .encodingFailed,
          message: "multipart part '\(part.name)': '\(file.url.path)' changed size since it was appended "
            + "(\(file.length ?? 0) bytes then, \(size ?? 0) now)"
        )
      }
    }
    return MultipartBodyReader(segments: segments())
  }

  /// The whole body in memory, for small forms; transports stream large ones through ``makeReader()``.
  ///
  /// ```swift
  /// let body: Data = try form.encode()
  /// ```
  /// - Returns: The body, exactly ``contentLength`` bytes.
  /// - Throws: What ``makeReader()`` and its reader throw.
  public func encode() throws(NetworkError) -> Data {
    do {
      return try readAll()
    } catch let error as NetworkError {
      throw error
    } catch {
      throw NetworkError(code: .encodingFailed, message: "the multipart body could not be read", underlyingError: error)
    }
  }

  /// The body as a few in-memory runs and the files between them.
  func segments() -> [MultipartBodyReader.Segment] {
    var result: [MultipartBodyReader.Segment] = []
    var pending = Data()
    let delimiter = Array("--\(boundary)".utf8)
    let lineEnd = Data("\r\n".utf8)
    for part in parts {
      pending.append(contentsOf: delimiter)
      pending.append(lineEnd)
      pending.append(part.headers)
      switch part.content {
      case .bytes(let bytes) where bytes.count <= 64 * 1024:
        pending.append(bytes)
      case .bytes(let bytes):
        // Large in-memory content is not copied: it becomes a run of its own.
        result.append(.bytes(pending))
        result.append(.bytes(bytes))
        pending = Data()
      case .file(let file):
        result.append(.bytes(pending))
        let check =
          checksFileContent ? MultipartBodyReader.DelimiterCheck(delimiter: delimiter, partName: part.name) : nil
        result.append(.file(file, check: check))
        pending = Data()
      }
      pending.append(lineEnd)
    }
    pending.append(Data("--\(boundary)--\r\n".utf8))
    result.append(.bytes(pending))
    return result
  }
}
