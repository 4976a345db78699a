/// A request body produced piece by piece, for bodies too large to hold in memory (files, multipart forms).
///
/// A transport asks for a new ``BodyReader`` each time it (re)sends the body — a 307 redirect sends it again —
/// and pulls bytes from it on its own thread.
public protocol BodySource: Sendable {
  /// The exact length in bytes, when known before anything is read; it becomes the `Content-Length` header.
  var length: UInt64? { get }
  /// A reader positioned at the first byte of the body.
  /// - Throws: When the body cannot be read (a missing file, say).
  func makeReader() throws -> any BodyReader
}

/// Reads one pass over a ``BodySource``. One owner at a time: readers are not shared between threads.
public protocol BodyReader: AnyObject {
  /// Copies the next bytes of the body into `buffer`.
  /// - Parameter buffer: Where to write; at most `buffer.count` bytes are written.
  /// - Returns: The number of bytes written; `0` only at the end of the body.
  /// - Throws: When the underlying storage fails or changed size while being read.
  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
}
