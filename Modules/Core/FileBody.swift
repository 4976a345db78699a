public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A file sent as a request body, read from disk in chunks as the transport asks for them.
///
/// The length is taken when the body is created and checked while reading: a file that grows or shrinks in the
/// meantime ends the transfer with an error instead of sending a body that disagrees with its `Content-Length`.
public struct FileBody: BodySource {
  /// The file.
  public let url: URL
  /// The file's size when the body was created.
  public let length: UInt64?

  /// A body of the file's bytes.
  /// - Parameter url: A file URL.
  /// - Throws: ``NetworkError`` with code ``NetworkError/Code/encodingFailed`` when the file cannot be found or is
  ///   not a regular file.
  public init(url: URL) throws(NetworkError) {
    self.url = url
    length = try Self.size(of: url)
  }

  /// Opens the file for one pass.
  /// - Returns: A reader at the first byte.
  /// - Throws: ``NetworkError`` with code ``NetworkError/Code/encodingFailed`` when the file cannot be opened.
  public func makeReader() throws -> any BodyReader {
    do {
      return FileBodyReader(handle: try FileHandle(forReadingFrom: url), url: url, expectedLength: length ?? 0)
    } catch {
      throw NetworkError(
        code: .encodingFailed,
        message: "cannot open '\(url.path)' for reading",
        underlyingError: error
      )
    }
  }

  static func size(of url: URL) throws(NetworkError) -> UInt64 {
    guard url.isFileURL else {
      throw NetworkError(code: .encodingFailed, message: "'\(url.absoluteString)' is not a file URL")
    }
    do {
      let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
      guard attributes[.type] as? FileAttributeType == .typeRegular, let size = attributes[.size] as? NSNumber else {
        throw NetworkError(code: .encodingFailed, message: "'\(url.path)' is not a regular file")
      }
      return size.uint64Value
    } catch let error as NetworkError {
      throw error
    } catch {
      throw NetworkError(code: .encodingFailed, message: "cannot read the file '\(url.path)'", underlyingError: error)
    }
  }
}

/// One pass over a file; closes it at the end or when released.
final class FileBodyReader: BodyReader {
  private let handle: FileHandle
  private let url: URL
  private let expectedLength: UInt64
  private var offset: UInt64 = 0

  init(handle: FileHandle, url: URL, expectedLength: UInt64) {
    self.handle = handle
    self.url = url
    self.expectedLength = expectedLength
  }

  deinit {
    try? handle.close()
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    guard buffer.count > 0, let base = buffer.baseAddress else { return 0 }
    let wanted = Int(min(UInt64(buffer.count), expectedLength - offset))
    if wanted == 0 {
      // Past the announced length: the file must have ended here too.
      var probe: UInt8 = 0
      if Foundation.read(handle.fileDescriptor, &probe, 1) > 0 { throw changed() }
      return 0
    }
    var count = 0
    while count < wanted {
      let result = Foundation.read(handle.fileDescriptor, base + count, wanted - count)
      if result < 0 {
        if errno == EINTR { continue }
        throw NetworkError(
          code: .encodingFailed,
          message: "reading '\(url.path)' failed: \(String(cString: strerror(errno)))"
        )
      }
      if result == 0 { throw changed() }
      count += result
    }
    offset += UInt64(count)
    return count
  }

  private func changed() -> NetworkError {
    NetworkError(
      code: .encodingFailed,
      message: "'\(url.path)' changed size while being sent (expected \(expectedLength) bytes)"
    )
  }
}
