package import Foundation
package import HTTPTypes
@_spi(Malibu) import MalibuCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Downloads a response body into a file: streamed to a file beside the destination, then renamed into place, so
/// the destination is either as it was or the whole new file. With resume on, the partial file and its
/// ``ResumeRecord`` are kept after a failure and continued by the next download with `Range` and `If-Range`.
///
/// Shared by `Transport.download(_:options:to:resume:maxBytes:)` and the facade, which hand it a `send` that runs their own
/// path; `send` is given the changes the download makes to the request head (the range fields and
/// `Accept-Encoding`) and applies them last, just before the transfer.
package enum Download {
  /// The file names a download uses beside its destination `name`: `name.partial` and `name.partial.resume` when
  /// resuming, else `.name.<random>.download`, removed on failure.
  struct Files {
    let destination: URL
    let partial: URL
    let record: URL
    let resumable: Bool

    init(destination: URL, resume: Bool) {
      self.destination = destination
      let directory = destination.deletingLastPathComponent()
      let name = destination.lastPathComponent
      resumable = resume
      if resume {
        partial = directory.appendingPathComponent(name + ".partial")
      } else {
        partial = directory.appendingPathComponent(".\(name).\(UUID().uuidString).download")
      }
      record = directory.appendingPathComponent(partial.lastPathComponent + ".resume")
    }

    /// The partial file's size and record when both are usable for `url`; otherwise removes what is there and
    /// answers `nil`. Both are opened with ``UntrustedFile``: a planted file was refused before the request
    /// (``refuseUntrustedFiles()``); one planted since is removed here (the name only: `unlink` never reaches the file
    /// a link points to), never followed, written through or waited on.
    func resumable(for url: String) -> (offset: Int64, record: ResumeRecord)? {
      guard resumable else { return nil }
      let size: Int64
      do {
        let (descriptor, status) = try UntrustedFile.open(partial, forWriting: true)
        close(descriptor)
        size = Int64(status.st_size)
      } catch {
        if error.reason == .missing {
          try? FileManager.default.removeItem(at: record)
        } else {
          discard()
        }
        return nil
      }
      guard size > 0, let record = ResumeRecord.load(from: record, for: url), size <= (record.length ?? .max) else {
        discard()
        return nil
      }
      return (size, record)
    }

    /// Refuses a partial file or record that is there but is not one a download leaves behind (a regular file, and
    /// for the partial file a single link): a symbolic link, a FIFO or another special file, or a hard link. Such a
    /// file was planted; it is left as it is, for whoever looks into it, and no request is sent.
    /// - Throws: ``DownloadError`` with ``DownloadError/Code/untrustedFile``, naming the file.
    func refuseUntrustedFiles() throws(DownloadError) {
      guard resumable else { return }
      for (file, writing) in [(partial, true), (record, false)] {
        do {
          let (descriptor, _) = try UntrustedFile.open(file, forWriting: writing)
          close(descriptor)
        } catch {
          if error.reason == .missing { continue }
          throw DownloadError(
            code: .untrustedFile,
            message: "\(error), so it is not what an earlier download left: nothing was sent; remove it to download "
              + "\(destination.lastPathComponent)"
          )
        }
      }
    }

    /// Removes the partial file and its record.
    func discard() {
      try? FileManager.default.removeItem(at: partial)
      try? FileManager.default.removeItem(at: record)
    }
  }

  /// Destinations being written by a download of this process.
  private static let busy = Locked<Set<String>>([])

  /// Runs a download.
  /// - Parameters:
  ///   - destination: Where the file goes.
  ///   - resume: Whether a partial file is continued and kept after a failure.
  ///   - maxBytes: The largest file written, counting a resumed partial file's bytes; `nil` for no limit.
  ///   - send: Sends the request once, with the head changed by the closure it is given.
  /// - Returns: The downloaded file.
  /// - Throws: ``DownloadError``, or whatever `send` or reading the body throws.
  package static func run(
    to destination: URL,
    resume: Bool,
    maxBytes: Int64? = nil,
    send: (_ adjust: (inout HTTPRequest) -> Void) async throws -> TransportResponse
  ) async throws -> DownloadedFile {
    let key = destination.standardizedFileURL.path
    guard busy.withLock({ $0.insert(key).inserted }) else {
      throw DownloadError(
        code: .destinationBusy,
        message: "another download of this process is writing to \(destination.lastPathComponent)"
      )
    }
    defer { _ = busy.withLock { $0.remove(key) } }
    let files = Files(destination: destination, resume: resume)
    try refuseMissingDirectory(of: destination)
    try files.refuseUntrustedFiles()
    // The partial file is looked at once the request head is final (the facade's hooks may change its URL).
    var lookForPartial = resume
    // A second request only after a 416 that did not confirm the partial file, which is then gone.
    while true {
      var offset: Int64 = 0
      var sentRecord: ResumeRecord?
      var url = ""
      let response: TransportResponse
      do {
        response = try await send { head in
          url = head.url?.absoluteString ?? ""
          // The download owns these fields: a range of the caller's would be written as if it were the file.
          head.headerFields[.range] = nil
          head.headerFields[.ifRange] = nil
          if lookForPartial, let (size, record) = files.resumable(for: url) {
            offset = size
            sentRecord = record
            head.headerFields[.range] = "bytes=\(size)-"
            head.headerFields[.ifRange] = record.validator
          }
          // Ranges count bytes of the representation sent; asking for the identity coding makes that the file.
          head.headerFields[.acceptEncoding] = "identity"
        }
      } catch {
        if !resume { files.discard() }
        throw error
      }
      var decision = decide(response.head, offset: offset, validator: sentRecord?.validator, length: sentRecord?.length)
      if let maxBytes, let refusal = refusal(of: decision, response, offset: offset, maxBytes: maxBytes) {
        decision = refusal
      }
      switch decision {
      case .restart:
        response.body.cancel()
        files.discard()
        lookForPartial = false
        continue
      case .complete:
        response.body.cancel()
        try moveIntoPlace(files)
        return DownloadedFile(
          location: destination,
          head: response.head,
          responseURL: response.url,
          byteCount: offset,
          resumedFrom: offset
        )
      case .fail(let code, let message, let discardPartial):
        response.body.cancel()
        if discardPartial || !resume { files.discard() }
        throw DownloadError(code: code, message: message, response: response.head)
      case .writeWhole:
        return try await write(response, to: files, url: url, appendingAt: nil, maxBytes: maxBytes)
      case .append(let expectedLength):
        return try await write(
          response,
          to: files,
          url: url,
          appendingAt: (offset, expectedLength),
          maxBytes: maxBytes
        )
      }
    }
  }

  /// Refuses a destination whose directory is not there (or is not a directory) before anything is sent, rather than
  /// after the response arrived, when the file is created.
  /// - Throws: ``DownloadError`` with ``DownloadError/Code/missingDirectory``, naming the directory.
  static func refuseMissingDirectory(of destination: URL) throws(DownloadError) {
    let directory = destination.deletingLastPathComponent()
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) else {
      throw DownloadError(
        code: .missingDirectory,
        message: "the directory \(directory.path) does not exist: nothing was sent; create it to download "
          + "\(destination.lastPathComponent)"
      )
    }
    guard isDirectory.boolValue else {
      throw DownloadError(
        code: .missingDirectory,
        message: "\(directory.path) is not a directory: nothing was sent (the destination's directory must exist)"
      )
    }
  }

  /// The failure of a response whose announced size is already past `maxBytes` (the whole body's `Content-Length`, or
  /// the complete length of a `206`'s `Content-Range`), decided before a byte of it is written; `nil` otherwise. The
  /// partial file is kept as it is: it may be continued under a larger limit.
  static func refusal(of decision: Decision, _ response: TransportResponse, offset: Int64, maxBytes: Int64) -> Decision?
  {
    let announced: Int64?
    switch decision {
    case .writeWhole:
      announced = response.body.expectedLength.map(Int64.init)
    case .append(let expectedLength):
      let complete = response.head.headerFields[.contentRange].flatMap(ContentRange.init)?.length
      announced = max(offset + expectedLength, complete ?? 0)
    case .complete, .restart, .fail:
      announced = nil
    }
    guard let announced, announced > maxBytes else { return nil }
    return .fail(
      .bodyTooLarge,
      "the response announces \(announced) bytes, more than the download's limit of \(maxBytes)",
      discardPartial: false
    )
  }

  /// Streams the body into the partial file (from its start, or appended at an offset, when it must grow by an
  /// expected length), then moves it into place. On failure the partial is kept only when it can be resumed.
  private static func write(
    _ response: TransportResponse,
    to files: Files,
    url: String,
    appendingAt append: (offset: Int64, expectedLength: Int64)?,
    maxBytes: Int64?
  ) async throws -> DownloadedFile {
    var keepOnFailure = false
    do {
      let handle: FileHandle
      if let append {
        // Opened again as untrusted: what was checked before the request may have been replaced since.
        let descriptor: Int32
        do {
          descriptor = try UntrustedFile.open(files.partial, forWriting: true).descriptor
        } catch {
          throw DownloadError(
            code: .untrustedFile,
            message: "the partial file was replaced during the request and is not continued: \(error)",
            response: response.head
          )
        }
        handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        try handle.truncate(atOffset: UInt64(append.offset))
        try handle.seekToEnd()
        keepOnFailure = true
      } else {
        try? FileManager.default.removeItem(at: files.partial)  // never write through a link planted there
        try? FileManager.default.removeItem(at: files.record)
        // O_EXCL | O_NOFOLLOW: a link planted after the removal fails the download instead of being written through.
        let descriptor: Int32
        do {
          descriptor = try UntrustedFile.create(files.partial)
        } catch {
          throw DownloadError(
            code: .fileSystem,
            message: "the download could not be created beside \(files.destination.lastPathComponent): \(error)",
            response: response.head
          )
        }
        handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        if files.resumable, let validator = validator(of: response.head) {
          let length = response.body.expectedLength.map(Int64.init)
          try ResumeRecord(url: url, validator: validator, length: length).save(to: files.record)
          keepOnFailure = true
        }
      }
      defer { try? handle.close() }
      var written: Int64 = 0
      let start = append?.offset ?? 0
      for try await chunk in response.body {
        if let maxBytes, start + written + Int64(chunk.count) > maxBytes {
          throw DownloadError(
            code: .bodyTooLarge,
            message: "the body went past the download's limit of \(maxBytes) bytes",
            response: response.head
          )
        }
        try handle.write(contentsOf: chunk)
        written += Int64(chunk.count)
      }
      if let append, written != append.expectedLength {
        keepOnFailure = false
        throw DownloadError(
          code: .rangeMismatch,
          message: "the 206 Partial Content carried \(written) bytes where its Content-Range announced "
            + "\(append.expectedLength)",
          response: response.head
        )
      }
      if append == nil, let expected = response.body.expectedLength, written != Int64(expected) {
        keepOnFailure = false
        throw DownloadError(
          code: .lengthMismatch,
          message: "the body carried \(written) bytes where its Content-Length announced \(expected)",
          response: response.head
        )
      }
      try handle.synchronize()
      try moveIntoPlace(files)
      return DownloadedFile(
        location: files.destination,
        head: response.head,
        responseURL: response.url,
        byteCount: (append?.offset ?? 0) + written,
        resumedFrom: append?.offset
      )
    } catch {
      response.body.cancel()
      if !(files.resumable && keepOnFailure) { files.discard() }
      if error is DownloadError || error is TransportError || error is CancellationError { throw error }
      throw DownloadError(
        code: .fileSystem,
        message: "the download could not be written beside \(files.destination.lastPathComponent)",
        response: response.head,
        underlyingError: error
      )
    }
  }

  /// Renames the partial file to the destination (replacing it atomically) and removes the resume record.
  private static func moveIntoPlace(_ files: Files) throws {
    guard rename(files.partial.path, files.destination.path) == 0 else {
      let code = POSIXErrorCode(rawValue: errno) ?? .EIO
      throw DownloadError(
        code: .fileSystem,
        message: "the download could not be moved to \(files.destination.lastPathComponent)",
        underlyingError: POSIXError(code)
      )
    }
    try? FileManager.default.removeItem(at: files.record)
  }
}
