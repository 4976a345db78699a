import Foundation
internal import HTTPTypes
@_spi(Malibu) internal import MalibuCore
internal import MalibuTransport

/// A real response body passed on to the caller chunk by chunk, and written to the cassette when it ends: read to
/// its end, failed, or stopped by its reader (a stream's reader usually stops it; what arrived is recorded).
struct RecordingBody: AsyncSequence, Sendable, TransferMeasured {
  typealias Element = Data

  let body: ResponseBody
  let entry: ExchangeRecorder

  var metrics: TransferMetrics? { body.metrics }

  func makeAsyncIterator() -> Iterator {
    Iterator(body: body, inner: body.makeAsyncIterator(), entry: entry)
  }

  struct Iterator: AsyncIteratorProtocol {
    let body: ResponseBody
    var inner: ResponseBody.Iterator
    let entry: ExchangeRecorder

    mutating func next() async throws -> Data? {
      let chunk: Data?
      do {
        chunk = try await inner.next()
      } catch {
        // What arrived is recorded, with the error unless the reader stopped; the reader gets the transfer's error.
        try? entry.finish(failure: Self.isStop(error) ? nil : error, metrics: nil)
        throw error
      }
      guard let chunk else {
        do {
          try entry.finish(failure: nil, metrics: body.metrics)
        } catch {
          throw TransportError(code: .other, message: error.message, underlyingError: error)
        }
        return nil
      }
      entry.append(chunk)
      return chunk
    }

    private static func isStop(_ error: any Error) -> Bool {
      error is CancellationError || (error as? TransportError)?.code == .cancelled
    }
  }
}

/// What a recording has gathered of one exchange, until its body ends and it is written.
final class ExchangeRecorder: Sendable {
  private struct Gathered: Sendable {
    var body = Data()
    var chunks: [CassetteRecording.Chunk] = []
    var written = false
  }

  private let directory: CassetteDirectory
  private let name: String
  private let request: CassetteRequest
  private let head: HTTPResponse
  private let url: String?
  private let secrets: [String]
  private let redaction: CassetteRedaction
  private let options: CassetteTransport.Options
  private let headMetrics: TransferMetrics?
  private let start = ContinuousClock.now
  private let gathered = Locked(Gathered())

  init(
    directory: CassetteDirectory,
    name: String,
    request: CassetteRequest,
    response: TransportResponse,
    secrets: [String],
    redaction: CassetteRedaction,
    options: CassetteTransport.Options
  ) {
    self.directory = directory
    self.name = name
    self.request = request
    self.head = response.head
    self.headMetrics = response.metrics
    self.url = response.url.map {
      redaction.scrub(redaction.redactor.redactedURL(of: HTTPRequest(method: .get, url: $0)), secrets)
    }
    self.secrets = secrets
    self.redaction = redaction
    self.options = options
  }

  func append(_ chunk: Data) {
    let milliseconds = (ContinuousClock.now - start).wholeMilliseconds
    gathered.withLock { gathered in
      gathered.body.append(chunk)
      if options.recordsTiming, !chunk.isEmpty {
        gathered.chunks.append(CassetteRecording.Chunk(size: chunk.count, milliseconds: milliseconds))
      }
    }
  }

  /// Writes the entry, once.
  func finish(failure: (any Error)?, metrics: TransferMetrics?) throws(CassetteError) {
    let taken: Gathered? = gathered.withLock { gathered in
      guard !gathered.written else { return nil }
      gathered.written = true
      return gathered
    }
    guard let taken else { return }
    guard taken.body.count <= options.maximumBodySize else {
      throw CassetteError(
        code: .tooLarge,
        message: "\(name) was not recorded: its body of \(taken.body.count) bytes is larger than "
          + "the cassette keeps (\(options.maximumBodySize))"
      )
    }
    var body = redaction.redacted(taken.body, contentType: head.headerFields[.contentType], secrets: secrets)
    if options.prettyPrintsJSON, let pretty = Self.prettyPrinted(body, contentType: head.headerFields[.contentType]) {
      body = pretty
    }
    // A body that redaction changed is kept whole: its recorded chunks no longer add up to it.
    let chunks = options.recordsTiming && body == taken.body ? taken.chunks : nil
    let transportError = failure.map {
      $0 as? TransportError ?? TransportError(code: .other, message: "\($0)", underlyingError: $0)
    }
    let response = CassetteRecording.Response(
      status: head.status.code,
      reason: head.status.reasonPhrase,
      url: url,
      headers: redaction.headers(head.headerFields, secrets: secrets),
      body: body.isEmpty
        ? nil
        : CassetteRecording.BodyFile(
          file: CassetteRecording.bodyFileName(forEntry: name),
          size: body.count,
          sha256: SHA256Digest.hex(body)
        ),
      chunks: chunks,
      failure: transportError.map {
        CassetteRecording.Failure(code: $0.code.description, message: redaction.scrub($0.message, secrets))
      },
      timing: options.recordsTiming ? Self.timing(metrics ?? headMetrics) : nil
    )
    try directory.write(CassetteRecording(request: request, response: response), named: name, body: body)
  }

  private static func timing(_ metrics: TransferMetrics?) -> CassetteRecording.Timing? {
    guard let metrics, metrics.firstByte != nil || metrics.total != nil else { return nil }
    return CassetteRecording.Timing(
      firstByte: metrics.firstByte?.wholeMilliseconds,
      total: metrics.total?.wholeMilliseconds
    )
  }

  private static func prettyPrinted(_ body: Data, contentType: String?) -> Data? {
    guard Redactor.isJSON(Redactor.mediaType(of: contentType)),
      let object = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed])
    else { return nil }
    return try? JSONSerialization.data(
      withJSONObject: object,
      options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed]
    )
  }
}

/// A recorded body replayed in its recorded chunks, at once or at their recorded pace, then its recorded error if
/// one ended it.
struct ReplayedChunks: AsyncSequence, Sendable {
  typealias Element = Data

  let data: Data
  let chunks: [CassetteRecording.Chunk]
  let paced: Bool
  let failure: TransportError?

  func makeAsyncIterator() -> Iterator {
    Iterator(sequence: self)
  }

  struct Iterator: AsyncIteratorProtocol {
    let sequence: ReplayedChunks
    var index = 0
    var offset = 0
    let start = ContinuousClock.now

    mutating func next() async throws -> Data? {
      guard index < sequence.chunks.count else {
        if let failure = sequence.failure { throw failure }
        return nil
      }
      let chunk = sequence.chunks[index]
      if sequence.paced {
        do {
          try await Task.sleep(until: start + .milliseconds(chunk.milliseconds), clock: .continuous)
        } catch {
          throw TransportError(code: .cancelled, message: "the replay was cancelled")
        }
      }
      let lower = sequence.data.startIndex + offset
      defer {
        index += 1
        offset += chunk.size
      }
      return sequence.data[lower..<(lower + chunk.size)]
    }
  }
}

extension Duration {
  /// The duration in whole milliseconds, as a cassette keeps times.
  fileprivate var wholeMilliseconds: Int {
    Int(components.seconds) * 1000 + Int(components.attoseconds / 1_000_000_000_000_000)
  }
}
