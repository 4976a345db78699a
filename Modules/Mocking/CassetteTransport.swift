public import Foundation
public import HTTPTypes
@_spi(Malibu) internal import MalibuCore
public import MalibuTransport

/// Records real exchanges to a cassette directory, and replays them with no network: tests run against what the
/// server really said, on any transport.
///
/// ```swift
/// let directory = URL(fileURLWithPath: "Tests/Cassettes/boards")
/// // Once, against the real server:
/// let recording = CassetteTransport(recording: directory, through: CurlTransport())
/// // In the tests, with no server:
/// let replaying = CassetteTransport(replaying: directory)
/// let networking = Networking<BoardsEndpoint>(baseUrl: "https://api.example.com", transport: replaying)
/// ```
///
/// - Every request of a networking passes through its transport, so a cassette serves collected requests, typed
///   requests, GraphQL, downloads (the file written as the original) and streams alike; the networking's hooks
///   (authentication, retries, validation, the failure stream) run as they do for real requests.
/// - Each exchange is an entry file (`0001-GET-boards.json`, JSON with sorted keys) and its body's bytes
///   (`0001-GET-boards.body`). Secrets never reach the disk: the request's and response's header fields, URL and
///   bodies are redacted by ``Options/redactor`` (the rules of the logs), and the request's secret values are
///   replaced wherever else they appear. `Date`, `Traceparent` and `Tracestate` are left out, so the same traffic
///   makes byte-identical files.
/// - A request matches a recording with the same method, URL (query parameters in any order) and body digest, or
///   by ``Options/matcher``. Identical requests replay their recordings in recorded order. A request that matches
///   nothing fails with ``CassetteError/Code/unmatched``, naming the nearest recording and what differs.
/// - A cassette is untrusted input: a file that is a symbolic link, an entry that names another body file, a body
///   larger than ``Options/maximumBodySize`` or shorter than declared, malformed JSON: each fails the request
///   with its ``CassetteError``, never reading outside the directory.
///
/// Errors reach the caller as `TransportError` (code `other`, or the recorded failure's code) whose
/// `underlyingError` is the ``CassetteError``.
public final class CassetteTransport: Transport {
  /// What a recording transport does with requests the cassette already has.
  public enum RecordMode: Sendable, Hashable {
    /// Every request goes to the network, and the cassette is recorded anew: its old entries are removed on the
    /// first request.
    case all
    /// Every request goes to the network, and is added after the cassette's entries (`surf --record`).
    case appending
    /// A request the cassette has a recording for replays it; any other goes to the network and is added.
    case missing
  }

  /// How a cassette is written and matched.
  public struct Options: Sendable {
    /// The redaction rules; the logs' by default.
    public var redactor: Redactor
    /// Header fields left out of a cassette (compared ignoring case): `Date`, `Traceparent` and `Tracestate` by
    /// default, which change on every run.
    public var ignoredHeaderNames: Set<String>
    /// The largest response body a cassette records or replays; 256 MiB by default.
    public var maximumBodySize: Int
    /// Whether each chunk of a body is recorded with its arrival time, so that a stream replays as it came, and the
    /// transfer's first-byte and total times, replayed as the response's metrics. Off by default: chunking and
    /// timing change from run to run, and a cassette without them is byte-identical.
    public var recordsTiming: Bool
    /// Whether recorded chunks are replayed at their recorded pace (on) or at once (off, the default).
    public var replaysAtRecordedPace: Bool
    /// Whether JSON response bodies are written pretty-printed with sorted keys (and so replayed that way). Off by
    /// default: the bytes are kept as they came.
    public var prettyPrintsJSON: Bool
    /// Decides whether a sent request (first argument) matches a recorded one (second); `nil` (the default) uses
    /// ``CassetteRequest/matches(_:)``. Both are redacted alike.
    public var matcher: (@Sendable (CassetteRequest, CassetteRequest) -> Bool)?

    /// Creates options.
    /// - Parameters:
    ///   - redactor: The redaction rules.
    ///   - ignoredHeaderNames: Header fields left out.
    ///   - maximumBodySize: The largest body recorded or replayed.
    ///   - recordsTiming: Whether chunks are recorded with their timing.
    ///   - replaysAtRecordedPace: Whether chunks are replayed at their recorded pace.
    ///   - prettyPrintsJSON: Whether JSON response bodies are pretty-printed.
    ///   - matcher: A matching rule of one's own.
    public init(
      redactor: Redactor = Redactor(),
      ignoredHeaderNames: Set<String> = ["Date", "Traceparent", "Tracestate"],
      maximumBodySize: Int = 256 << 20,
      recordsTiming: Bool = false,
      replaysAtRecordedPace: Bool = false,
      prettyPrintsJSON: Bool = false,
      matcher: (@Sendable (CassetteRequest, CassetteRequest) -> Bool)? = nil
    ) {
      self.redactor = redactor
      self.ignoredHeaderNames = ignoredHeaderNames
      self.maximumBodySize = maximumBodySize
      self.recordsTiming = recordsTiming
      self.replaysAtRecordedPace = replaysAtRecordedPace
      self.prettyPrintsJSON = prettyPrintsJSON
      self.matcher = matcher
    }
  }

  private struct State: Sendable {
    /// The entries on disk, read on the first request that replays.
    var entries: [CassetteDirectory.Entry]?
    /// The numbers of the entries replayed so far.
    var replayed: Set<Int> = []
    /// The number of the next entry recorded; `nil` until the directory has been prepared.
    var nextNumber: Int?
  }

  private let directory: CassetteDirectory
  private let recorder: (any Transport)?
  private let recordMode: RecordMode
  private let options: Options
  private let redaction: CassetteRedaction
  private let state = Locked(State())

  /// A transport that answers only from the cassette in `directory`: it never touches the network.
  /// - Parameters:
  ///   - directory: The cassette's directory.
  ///   - options: Matching, limits and pace.
  public init(replaying directory: URL, options: Options = Options()) {
    self.directory = CassetteDirectory(url: directory, maximumBodySize: options.maximumBodySize)
    self.recorder = nil
    self.recordMode = .missing
    self.options = options
    self.redaction = CassetteRedaction(redactor: options.redactor, ignoredHeaderNames: options.ignoredHeaderNames)
  }

  /// A transport that sends requests through `transport` and records each exchange in `directory` (created if
  /// needed).
  /// - Parameters:
  ///   - directory: The cassette's directory.
  ///   - transport: The transport that reaches the network.
  ///   - mode: `.all` (the default) records everything anew; `.appending` adds every exchange to the cassette;
  ///     `.missing` replays what the cassette has and records the rest.
  ///   - options: Redaction, matching, limits and timing.
  public init(
    recording directory: URL,
    through transport: any Transport,
    mode: RecordMode = .all,
    options: Options = Options()
  ) {
    self.directory = CassetteDirectory(url: directory, maximumBodySize: options.maximumBodySize)
    self.recorder = transport
    self.recordMode = mode
    self.options = options
    self.redaction = CassetteRedaction(redactor: options.redactor, ignoredHeaderNames: options.ignoredHeaderNames)
  }

  /// The cassette's directory.
  public var url: URL { directory.url }

  /// The recordings in the cassette's directory as they are now, in the order of their entries, each checked.
  /// - Returns: The entries' names and recordings.
  /// - Throws: ``CassetteError`` for the first entry that cannot be read.
  public func recordings() throws(CassetteError) -> [(name: String, recording: CassetteRecording)] {
    try directory.entries(mustExist: true).map { ($0.name, $0.recording) }
  }

  /// The recording transport's executor, so that a networking keeps its task on the real transport's thread.
  public var taskExecutor: (any TaskExecutor)? { recorder?.taskExecutor }

  /// Answers from the cassette, or sends the request and records the exchange (see ``CassetteTransport``).
  /// - Parameters:
  ///   - request: The request head.
  ///   - body: The request body, if any; it is read whole, to be digested and redacted.
  ///   - transferOptions: Passed to the recording transport; a replay uses none of them.
  /// - Returns: The recorded or real response.
  /// - Throws: `TransportError`: the recorded failure, the real transport's error, or code `other` with a
  ///   ``CassetteError`` as its `underlyingError`.
  public func send(
    _ request: HTTPRequest,
    body: RequestBody?,
    options transferOptions: TransferOptions
  ) async throws -> TransportResponse {
    let bytes: Data?
    do {
      bytes = try await MockTransport.RecordedRequest.collect(body)
    } catch {
      throw TransportError(code: .invalidRequest, message: "the request body cannot be read", underlyingError: error)
    }
    let secrets =
      (redaction.secrets(of: request)
      + redaction.secrets(ofBody: bytes, contentType: request.headerFields[.contentType]))
      .sorted { $0.count > $1.count }
    let sent = redaction.request(request, body: bytes, secrets: secrets)
    do {
      guard let recorder else {
        return try replay(try claim(sent, mustExist: true).get(), to: request, sent: sent)
      }
      if recordMode == .missing, case .success(let entry) = try claim(sent, mustExist: false) {
        return try replay(entry, to: request, sent: sent)
      }
      let name = try reserveName(for: sent)
      return try await record(
        request,
        body: bytes.map(RequestBody.data),
        through: recorder,
        options: transferOptions,
        as: name,
        sent: sent,
        secrets: secrets
      )
    } catch let error as CassetteError {
      throw TransportError(code: .other, message: error.message, underlyingError: error)
    }
  }

  // MARK: Replaying

  /// The first recording not yet replayed that matches `sent`, marked as replayed; or why there is none.
  private func claim(
    _ sent: CassetteRequest,
    mustExist: Bool
  ) throws(CassetteError) -> Result<CassetteDirectory.Entry, CassetteError> {
    if state.withLock({ $0.entries == nil }) {
      let entries = try directory.entries(mustExist: mustExist)
      state.withLock { state in
        if state.entries == nil { state.entries = entries }
      }
    }
    let matcher = options.matcher ?? { $0.matches($1) }
    return state.withLock { state in
      let entries = state.entries ?? []
      let matching = entries.filter { matcher(sent, $0.recording.request) }
      if let entry = matching.first(where: { !state.replayed.contains($0.number) }) {
        state.replayed.insert(entry.number)
        return .success(entry)
      }
      return .failure(unmatched(sent, entries: entries, replayed: matching.count))
    }
  }

  private func unmatched(_ sent: CassetteRequest, entries: [CassetteDirectory.Entry], replayed: Int) -> CassetteError {
    let what = "\(sent.method) \(sent.url)"
    if replayed > 0 {
      return CassetteError(
        code: .unmatched,
        message: "\(what) was sent more often than the cassette \(url.lastPathComponent) recorded it: its "
          + "\(replayed) recording\(replayed == 1 ? " was" : "s were") replayed already"
      )
    }
    let nearest = entries.map { ($0, sent.differences(from: $0.recording.request)) }.min { $0.1.count < $1.1.count }
    guard let (entry, differences) = nearest else {
      return CassetteError(code: .unmatched, message: "\(what): the cassette \(url.path) has no recordings")
    }
    let recorded = entry.recording.request
    let why =
      differences.isEmpty ? "which the matcher refused" : "which differs in " + differences.joined(separator: ", ")
    return CassetteError(
      code: .unmatched,
      message: "no recording in \(url.lastPathComponent) matches \(what); the nearest is \(entry.name) "
        + "(\(recorded.method) \(recorded.url)), \(why)"
    )
  }

  private func replay(
    _ entry: CassetteDirectory.Entry,
    to request: HTTPRequest,
    sent: CassetteRequest
  ) throws -> TransportResponse {
    guard let response = entry.recording.response else {
      throw Self.transportError(
        entry.recording.failure ?? CassetteRecording.Failure(code: "other", message: "no response")
      )
    }
    let data = try directory.body(of: entry)
    var fields = HTTPFields()
    for header in response.headers {
      guard let name = HTTPField.Name(header.name) else { continue }
      fields.append(HTTPField(name: name, value: header.value))
    }
    let head = HTTPResponse(status: .init(code: response.status, reasonPhrase: response.reason), headerFields: fields)
    let url = response.url == sent.url ? request.url : response.url.flatMap(URL.init(string:)) ?? request.url
    let failure = response.failure.map(Self.transportError)
    let metrics = response.timing.map {
      TransferMetrics(firstByte: $0.firstByte.map { .milliseconds($0) }, total: $0.total.map { .milliseconds($0) })
    }
    guard response.chunks != nil || failure != nil else {
      return TransportResponse(head: head, url: url, body: ResponseBody(data: data), metrics: metrics)
    }
    let chunks = ReplayedChunks(
      data: data,
      chunks: response.chunks ?? [CassetteRecording.Chunk(size: data.count, milliseconds: 0)].filter { $0.size > 0 },
      paced: options.replaysAtRecordedPace,
      failure: failure
    )
    return TransportResponse(
      head: head,
      url: url,
      body: ResponseBody(chunks: chunks, expectedLength: data.count),
      metrics: metrics
    )
  }

  static func transportError(_ failure: CassetteRecording.Failure) -> TransportError {
    TransportError(code: TransportError.Code(named: failure.code) ?? .other, message: failure.message)
  }

  // MARK: Recording

  /// The name of the next entry; on the first one, the directory is created (and emptied, in `.all`).
  private func reserveName(for sent: CassetteRequest) throws(CassetteError) -> String {
    let prepared = state.withLock { $0.nextNumber != nil }
    if !prepared {
      let first: Int
      if recordMode == .all {
        try directory.clear()
        first = 1
      } else {
        try directory.create()
        var known = state.withLock { $0.entries }
        if known == nil { known = try directory.entries(mustExist: false) }
        first = (known?.map(\.number).max() ?? 0) + 1
      }
      state.withLock { state in
        if state.nextNumber == nil { state.nextNumber = first }
      }
    }
    let number = state.withLock { state in
      let number = state.nextNumber ?? 1
      state.nextNumber = number + 1
      return number
    }
    return CassetteDirectory.entryName(number: number, method: sent.method, url: sent.url)
  }

  private func record(
    _ request: HTTPRequest,
    body: RequestBody?,
    through transport: any Transport,
    options transferOptions: TransferOptions,
    as name: String,
    sent: CassetteRequest,
    secrets: [String]
  ) async throws -> TransportResponse {
    let response: TransportResponse
    do {
      response = try await transport.send(request, body: body, options: transferOptions)
    } catch {
      let transportError =
        error as? TransportError ?? TransportError(code: .other, message: "\(error)", underlyingError: error)
      if transportError.code != .cancelled {
        let failure = CassetteRecording.Failure(
          code: transportError.code.description,
          message: redaction.scrub(transportError.message, secrets)
        )
        try directory.write(CassetteRecording(request: sent, failure: failure), named: name, body: Data())
      }
      throw error
    }
    let recording = RecordingBody(
      body: response.body,
      entry: ExchangeRecorder(
        directory: directory,
        name: name,
        request: sent,
        response: response,
        secrets: (secrets + redaction.secrets(setBy: response.head)).sorted { $0.count > $1.count },
        redaction: redaction,
        options: options
      )
    )
    return TransportResponse(
      head: response.head,
      url: response.url,
      body: ResponseBody(chunks: recording, expectedLength: response.body.expectedLength),
      metrics: response.metrics
    )
  }
}
