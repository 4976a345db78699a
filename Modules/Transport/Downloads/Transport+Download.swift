public import Foundation
public import HTTPTypes

extension Transport {
  /// Downloads a response body into a file, with flat memory, optionally continuing an earlier partial download.
  ///
  /// ```swift
  /// let file = try await transport.download(HTTPRequest(method: .get, url: url), to: destination, resume: true)
  /// print(file.byteCount, file.isResumed)
  /// ```
  ///
  /// The body is streamed into a file in the destination's directory and, once complete, renamed to `destination`
  /// (replacing a file there atomically). Until then the destination is untouched: a failure or a cancellation
  /// leaves it as it was.
  ///
  /// **Resume.** With `resume` off (the default) the file is written under a temporary name, removed on failure.
  /// With `resume` on, it is written to `<destination>.partial`, with a small record beside it
  /// (`<destination>.partial.resume`: a digest of the URL and the response's validator — its strong `ETag`, else its
  /// `Last-Modified`). After a failure or a cancellation both are kept, and the next download to the same destination
  /// asks for the rest with `Range: bytes=N-` and `If-Range: <validator>`:
  /// - a `206` whose `Content-Range` starts at `N` is appended, and must carry exactly the bytes it announces;
  /// - a `206` of another version — its `ETag` not the one sent in `If-Range` (or missing), its `Last-Modified` not
  ///   the date sent, or the complete length of its `Content-Range` not the one recorded — is a server or cache that
  ///   ignored `If-Range`: the partial file is thrown away and the download restarts without a range, so the file is
  ///   never a splice of two versions (RFC 9110, 13.1.5);
  /// - a `200` (the resource changed, or the server ignores ranges) starts the file again from its first byte;
  /// - a `416` completes the download when its `Content-Range` (`bytes */length`) says the partial file is the whole
  ///   resource, else the download starts again without a range;
  /// - any other `206` fails with ``DownloadError/Code/rangeMismatch`` and the partial file is removed: bytes that
  ///   do not continue the file are never written into it.
  /// A partial file without a readable record, or whose record is for another URL, is started again. A response with
  /// no strong validator leaves nothing to resume. Both files are untrusted: a partial file or a record that is not a
  /// regular file (a symbolic link, a FIFO), or a partial file with more than one hard link, was planted there; it is
  /// never followed, waited on or written through, and the download fails at once with
  /// ``DownloadError/Code/untrustedFile`` before anything is sent, leaving it for whoever looks into it.
  ///
  /// **Size limit.** With `maxBytes`, a response whose `Content-Length` (or `Content-Range` complete length) is larger
  /// fails with ``DownloadError/Code/bodyTooLarge`` before a byte is written, and a body that grows past it (the
  /// bytes of a resumed partial file counted) is stopped there with the same error; the partial file follows the
  /// rules of any failure (kept with `resume`, else removed). The default is no limit: the body goes to disk, not
  /// memory.
  ///
  /// **Content codings.** A range counts bytes of the representation the server sends, not of the decoded body, so
  /// decoding and ranges do not mix. A download therefore asks for `Accept-Encoding: identity` (replacing the
  /// request's own field): the file is the resource's bytes exactly, ranges line up with it, and there is nothing to
  /// decode — which also suits URLSession, which cannot turn decoding off. A `206` that still arrives content-coded is
  /// refused; a content-coded `200` is written as the transport hands it over (decoded, when `options.decompression`
  /// is on) and is not resumable.
  ///
  /// Only a 2xx response (or a `206`/`416` to a resumed request) is written; another status fails with
  /// ``DownloadError/Code/unacceptableStatus`` without reading the body. Two downloads to the same destination in one
  /// process at once are refused (``DownloadError/Code/destinationBusy``).
  /// - Parameters:
  ///   - request: The request head; its URL must be absolute. `Range` and `If-Range` are the download's own.
  ///   - options: Timeouts, redirects, decompression, TLS and progress.
  ///   - destination: Where the file goes; its directory must exist.
  ///   - resume: Whether to continue a partial file left by an earlier download, and keep one after a failure.
  ///   - maxBytes: The largest file written, in bytes, or `nil` (the default) for no limit.
  /// - Returns: The file's location, the response head, its size and whether it was resumed.
  /// - Throws: ``TransportError`` for the transfer, ``DownloadError`` for the response or the file system.
  public func download(
    _ request: HTTPRequest,
    options: TransferOptions = TransferOptions(),
    to destination: URL,
    resume: Bool = false,
    maxBytes: Int64? = nil
  ) async throws -> DownloadedFile {
    try await Download.run(to: destination, resume: resume, maxBytes: maxBytes) { adjust in
      var head = request
      adjust(&head)
      return try await send(head, body: nil, options: options)
    }
  }
}
