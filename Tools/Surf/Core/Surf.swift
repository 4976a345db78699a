public import Foundation
import HTTPTypes
public import Malibu

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The request of one `surf` run, as a Malibu endpoint: its resource is an absolute URL, so there is no base URL
/// (credentials then go to the origin of the first request only; see `Networking.authenticate`).
public struct SurfEndpoint: RequestConvertible {
  /// None: every resource is an absolute URL.
  public static let baseUrl: (any URLStringConvertible)? = nil
  /// The request.
  public let request: Request

  /// Wraps a request.
  /// - Parameter request: The request.
  public init(request: Request) { self.request = request }
}

/// Every option of `surf`'s request command, as the command line gave it.
public struct SurfOptions: Sendable {
  /// JSON, form or multipart for data items.
  public var style: BodyStyle = .json
  /// `--print` letters, or `nil` for the default.
  public var print: PrintSelection?
  /// `--pretty`, or `nil` for the default (all on a terminal, none when piped).
  public var pretty: Pretty?
  /// `--check-status`.
  public var checkStatus = false
  /// `--download`.
  public var download = false
  /// `--continue`: go on from surf's own `<file>.partial`, or from a partial file another tool left (``PartialFile``).
  public var resume = false
  /// `--max-download-size`, in bytes: the largest file a download writes, or `nil` for no limit.
  public var maxDownloadSize: Int64?
  /// `--output`.
  public var output: String?
  /// `--auth`.
  public var auth: String?
  /// `--auth-type`: `basic` or `bearer`.
  public var authType = "basic"
  /// `--session`.
  public var session: String?
  /// `--follow`.
  public var follow = false
  /// `--max-redirects`.
  public var maxRedirects = 30
  /// `--timeout`, in seconds.
  public var timeout: Double?
  /// `--verify`: `yes`, `no` or a CA bundle's path.
  public var verify = "yes"
  /// `--cacert`.
  public var caFile: String?
  /// `--pin`: a public-key pin, `sha256//…`.
  public var pin: String?
  /// `--transport`: `curl` or `urlsession`.
  public var transport = "curl"
  /// `--retry`: how many times to retry.
  public var retries = 0
  /// `--offline`: build the request and print it without sending it (HTTPie's dry run): nothing connects, so a
  /// `DELETE` deletes nothing. The request head and body are printed (`--print HB` unless `--print` says otherwise).
  public var offline = false
  /// `--store-if-unreachable`: store the request for `surf replay` when the host cannot be reached (what `--offline`
  /// meant before).
  public var storeIfUnreachable = false
  /// `--public-only`: connect only to public internet addresses (`ConnectionPolicy.publicInternetOnly`).
  public var publicOnly = false
  /// `--record DIR`: send the request and add the exchange to the cassette in `DIR` (`CassetteTransport`, appending),
  /// so that a test suite can replay it.
  public var record: String?
  /// `--replay DIR`: answer from the cassette in `DIR`, never touching the network.
  public var replay: String?
  /// `--ignore-stdin`.
  public var ignoreStandardInput = false
  /// `--stream`: print the body as it arrives, a `text/event-stream` event by event (see `Surf.stream`).
  public var stream = false
  /// `--meta`: print a line of the transfer's timings after the response (HTTPie's `--meta`).
  public var meta = false

  /// The defaults.
  public init() {}

  /// A size as `--max-download-size` takes it: a whole number of bytes, or followed by `K`, `M`, `G` or `T` (powers of
  /// 1024, case-insensitive, an optional `B` or `iB` after them): `1048576`, `500K`, `10M`, `2GiB`.
  /// - Parameter text: The size.
  /// - Returns: The size in bytes.
  /// - Throws: A usage ``SurfError`` for anything else, zero, or a size past `Int64`.
  public static func byteCount(_ text: String) throws(SurfError) -> Int64 {
    var digits = Substring(text.trimmingCharacters(in: .whitespaces).uppercased())
    for suffix in ["IB", "B"] where digits.hasSuffix(suffix) && digits.count > suffix.count {
      digits = digits.dropLast(suffix.count)
      break
    }
    var shift: Int64 = 0
    if let last = digits.last, let power = ["K": 10, "M": 20, "G": 30, "T": 40][String(last)] {
      shift = Int64(power)
      digits = digits.dropLast()
    }
    guard !digits.isEmpty, digits.count <= 18, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber),
      let number = Int64(digits), number > 0, number <= Int64.max >> shift
    else {
      throw SurfError.usage("--max-download-size: '\(text)' is not a size such as 1048576, 500K, 10M or 2G")
    }
    return number << shift
  }
}

/// Runs `surf` commands on Malibu's `Networking`.
public struct Surf: Sendable {
  /// The standard streams.
  public var console: Console
  /// The environment (`HOME`, `XDG_CONFIG_HOME`).
  public var environment: [String: String]

  /// Creates a runner.
  /// - Parameters:
  ///   - console: The standard streams.
  ///   - environment: The environment.
  public init(console: Console = .standard, environment: [String: String] = ProcessInfo.processInfo.environment) {
    self.console = console
    self.environment = environment
  }

  var configDirectory: URL { ConfigDirectory.url(environment: environment) }

  /// The offline store `--offline` saves into and `surf replay` sends from: `<config>/offline`.
  public var offlineStore: OfflineRequestStore {
    OfflineRequestStore(directory: configDirectory.appendingPathComponent("offline", isDirectory: true))
  }

  /// Sends the request of a command line and prints the answer.
  /// - Parameters:
  ///   - arguments: `[METHOD] URL [ITEM …]`.
  ///   - options: The options.
  /// - Returns: The exit status.
  /// - Throws: ``SurfError`` for anything that ends the run with a message.
  public func send(_ arguments: [String], options: SurfOptions) async throws(SurfError) -> SurfExitStatus {
    try Self.checkStream(options)
    let line = try RequestLine(parsing: arguments)
    let hasItemBody = line.items.contains(where: \.isBody)
    let input = options.ignoreStandardInput || console.inputIsTerminal || hasItemBody ? nil : console.readInput()
    let spec = try RequestSpec(line: line, style: options.style, standardInput: input)
    var session: Session?
    if let name = options.session {
      session = try Session(fileURL: Session.fileURL(name: name, for: spec.url, configDirectory: configDirectory))
    }
    let networking = try makeNetworking(
      options: options,
      cookies: session?.jar,
      transport: options.offline ? .custom(DryRunTransport()) : nil
    )
    if let auth = try authentication(options: options, session: &session) {
      switch auth.type {
      case "bearer": networking.authenticate(bearerToken: auth.credentials)
      default:
        let (user, password) = Self.split(auth.credentials)
        networking.authenticate(username: user, password: password)
      }
    }
    let endpoint = SurfEndpoint(
      request: spec.request(storePolicy: options.storeIfUnreachable && !options.offline ? .offline : .unspecified)
    )
    if options.offline {
      // A dry run changes nothing: no session is saved.
      return try await dryRun(endpoint, spec: spec, networking: networking, options: options)
    }
    let status: SurfExitStatus
    if options.download {
      status = try await download(endpoint, spec: spec, networking: networking, options: options)
    } else if options.stream {
      status = try await stream(endpoint, spec: spec, networking: networking, options: options) { console.output($0) }
    } else {
      status = try await exchange(endpoint, spec: spec, networking: networking, options: options)
    }
    try session?.save()
    return status
  }

  /// Sends every request `--offline` stored, oldest first, and prints one line per request.
  /// - Parameter transport: `curl` or `urlsession`.
  /// - Returns: Success when every stored request got a response; the error status when some failed or still
  ///   cannot reach their host (those stay stored).
  /// - Throws: ``SurfError`` when the store cannot be read.
  public func replay(transport: String = "curl") async throws(SurfError) -> SurfExitStatus {
    var options = SurfOptions()
    options.transport = transport
    let networking = try makeNetworking(options: options, cookies: nil)
    let outcomes: [ReplayOutcome]
    do {
      outcomes = try await networking.replay().value
    } catch {
      throw SurfError(status: .error, message: "the offline store cannot be read: \(error)", underlyingError: error)
    }
    var status = SurfExitStatus.success
    for outcome in outcomes {
      switch outcome {
      case .success(let response):
        let request = response.request
        console.output(
          "\(response.statusCode) \(response.status.reasonPhrase)  \(request.method.rawValue) \(request.url?.absoluteString ?? "")\n"
        )
      case .failure(let error):
        let failure = Self.failure(error)
        console.error("surf: replay: \(failure.message)\n")
        status = .error
      }
    }
    let left = (try? networking.offlineStore.all().count) ?? 0
    console.error("surf: \(outcomes.count) replayed, \(left) still stored\n")
    return status
  }

  // MARK: - The networking

  /// The networking of a run.
  /// - Parameters:
  ///   - options: The options.
  ///   - cookies: The session's cookie jar.
  ///   - override: The transport to use instead of `--transport`'s (the dry run's).
  func makeNetworking(
    options: SurfOptions,
    cookies: CookieJar?,
    transport override: TransportKind? = nil
  ) throws(SurfError) -> Networking<SurfEndpoint> {
    var transport: TransportKind
    switch options.transport.lowercased() {
    #if canImport(MalibuCurl)
    case "curl": transport = .curl
    #endif
    case "urlsession": transport = .urlSession
    default: throw SurfError.usage("--transport: '\(options.transport)' is not curl or urlsession")
    }
    if let override { transport = override }
    transport = try Self.cassette(around: transport, options: options)
    let networking = Networking<SurfEndpoint>(
      sessionConfiguration: .ephemeral,
      transport: transport,
      cookies: cookies,
      offlineStore: offlineStore
    )
    var transfer = networking.transferOptions
    guard options.maxRedirects >= 0 else { throw SurfError.usage("--max-redirects cannot be negative") }
    guard options.retries >= 0 else { throw SurfError.usage("--retry cannot be negative") }
    transfer.redirects = options.follow ? .follow(max: options.maxRedirects) : .none
    if let timeout = options.timeout {
      guard timeout > 0 else { throw SurfError.usage("--timeout must be more than 0 seconds") }
      let duration = Duration.milliseconds(Int64(timeout * 1000))
      transfer.timeouts = Timeouts(connect: duration, idle: duration, total: nil)
    }
    switch options.verify.lowercased() {
    case "yes", "true": break
    case "no", "false": transfer.tls.insecure = true
    default: transfer.tls.caFile = options.verify
    }
    if let caFile = options.caFile { transfer.tls.caFile = caFile }
    if let pin = options.pin { transfer.tls.pinnedPublicKey = pin }
    if options.retries > 0 { transfer.retry = RetryPolicy(maxAttempts: options.retries + 1) }
    if options.publicOnly { transfer.connectionPolicy = .publicInternetOnly }
    networking.transferOptions = transfer
    networking.maximumResponseSize = Int.max
    return networking
  }

  func authentication(options: SurfOptions, session: inout Session?) throws(SurfError) -> Session.Auth? {
    guard let credentials = options.auth else { return session?.auth }
    let type = options.authType.lowercased()
    guard type == "basic" || type == "bearer" else {
      throw SurfError.usage("--auth-type: '\(options.authType)' is not basic or bearer")
    }
    if type == "basic", !credentials.contains(":") {
      throw SurfError.usage("--auth: give user:password (surf does not prompt)")
    }
    let auth = Session.Auth(type: type, credentials: credentials)
    session?.auth = auth
    return auth
  }

  static func split(_ credentials: String) -> (String, String) {
    guard let colon = credentials.firstIndex(of: ":") else { return (credentials, "") }
    return (String(credentials[..<colon]), String(credentials[credentials.index(after: colon)...]))
  }

  // MARK: - Exchanges

  func exchange(
    _ endpoint: SurfEndpoint,
    spec: RequestSpec,
    networking: Networking<SurfEndpoint>,
    options: SurfOptions
  ) async throws(SurfError) -> SurfExitStatus {
    let bar =
      spec.uploadsFiles && console.errorIsTerminal ? ProgressBar(width: console.width, write: console.error) : nil
    if let bar {
      networking.progress = { event in
        // Events before the body's length is known say nothing about the upload; once it is all sent, the bar goes.
        guard let total = event.progress.uploadTotal else { return }
        if event.progress.uploaded >= total { return bar.finish() }
        bar.update(done: event.progress.uploaded, total: total)
      }
    }
    let response: Response
    do {
      response = try await networking.request(endpoint).value
      bar?.finish()
    } catch {
      bar?.finish()
      throw failure(error, options: options, spec: spec)
    }
    let selection = options.print ?? .standard(terminal: console.outputIsTerminal)
    let formatter = Formatter(
      pretty: options.pretty ?? Pretty(colors: console.outputIsTerminal, format: console.outputIsTerminal)
    )
    if selection.requestHead { console.output(formatter.requestHead(response.request)) }
    if selection.requestBody, let body = Self.describe(spec.body) { console.output(body + "\n\n") }
    if selection.responseHead { console.output(formatter.responseHead(response.httpResponse)) }
    if selection.responseBody {
      let contentType = response.headers[.contentType]
      if let text = formatter.body(response.data, contentType: contentType, terminal: console.outputIsTerminal) {
        console.output(text)
      } else {
        console.output(response.data)
      }
    }
    if options.meta { console.output(formatter.meta(response.metrics)) }
    return checked(response.statusCode, options: options)
  }

  /// `--offline`: the request goes through Malibu's whole path (authentication, header fields, encoding) to
  /// ``DryRunTransport``, which sends nothing; its head and body are printed, by default both (`--print HB`).
  func dryRun(
    _ endpoint: SurfEndpoint,
    spec: RequestSpec,
    networking: Networking<SurfEndpoint>,
    options: SurfOptions
  ) async throws(SurfError) -> SurfExitStatus {
    let response: Response
    do {
      response = try await networking.request(endpoint).value
    } catch {
      throw Self.failure(error, target: "\(spec.method) \(spec.url.absoluteString)")
    }
    let selection = options.print ?? PrintSelection(requestHead: true, requestBody: true)
    let formatter = Formatter(
      pretty: options.pretty ?? Pretty(colors: console.outputIsTerminal, format: console.outputIsTerminal)
    )
    if selection.requestHead { console.output(formatter.requestHead(response.request)) }
    if selection.requestBody, let body = Self.describe(spec.body) { console.output(body + "\n") }
    return .success
  }

  func checked(_ statusCode: Int, options: SurfOptions) -> SurfExitStatus {
    guard options.checkStatus else { return .success }
    let status = SurfExitStatus.checking(statusCode)
    if status != .success, !console.outputIsTerminal {
      console.error("surf: warning: HTTP \(statusCode)\n")
    }
    return status
  }

  /// The request body as `-v` shows it: JSON and forms as sent, files by name and size.
  static func describe(_ body: RequestSpec.Body) -> String? {
    switch body {
    case .none: return nil
    case .json(let value):
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
      return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) }
    case .form(let fields):
      return fields.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
    case .multipart(let fields, let files):
      let parts = fields.map { "\($0.name)=\($0.value)" } + files.map { "\($0.name)@\($0.path.lastPathComponent)" }
      return "(multipart/form-data: \(parts.joined(separator: ", ")))"
    case .file(let url, let contentType):
      let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
      return "(\(contentType) from \(url.lastPathComponent), \(ProgressLine.size(Int64(size))))"
    case .data(let data, _):
      return String(data: data, encoding: .utf8) ?? "(\(ProgressLine.size(Int64(data.count))) of binary data)"
    }
  }

  // MARK: - Downloads

  func download(
    _ endpoint: SurfEndpoint,
    spec: RequestSpec,
    networking: Networking<SurfEndpoint>,
    options: SurfOptions
  ) async throws(SurfError) -> SurfExitStatus {
    let destination = destination(for: spec.url, options: options)
    let bar = console.errorIsTerminal ? ProgressBar(width: console.width, write: console.error) : nil
    // A partial file another tool left: continued from its size, as HTTPie's --continue (surf's own go on below).
    let partial = options.resume ? PartialFile.size(at: destination) : nil
    if let bar, partial == nil {
      networking.progress = { event in bar.update(done: event.progress.downloaded, total: event.progress.downloadTotal)
      }
    }
    let start = ContinuousClock.now
    let file: DownloadedFile
    do {
      if let partial {
        file = try await continuePartial(
          at: destination,
          from: partial,
          spec: spec,
          networking: networking,
          options: options,
          bar: bar
        )
      } else {
        file = try await networking.download(
          endpoint,
          to: destination,
          resume: options.resume,
          maxBytes: options.maxDownloadSize
        ).value
      }
      bar?.finish()
    } catch let error as SurfError {
      bar?.finish()
      throw error
    } catch let error as NetworkError where error.code == .unacceptableStatusCode && error.response != nil {
      // A status that is not a file: nothing was written. --check-status gives it HTTPie's exit status.
      bar?.finish()
      let code = error.response?.statusCode ?? 0
      let status = options.checkStatus ? SurfExitStatus.checking(code) : .error
      throw SurfError(
        status: status == .success ? .error : status,
        message: "download failed: HTTP \(code)",
        underlyingError: error
      )
    } catch {
      bar?.finish()
      throw failure(error, options: options, spec: spec)
    }
    let elapsed = ContinuousClock.now - start
    let seconds = max(0.001, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    let selection = options.print ?? .standard(terminal: console.errorIsTerminal)
    if selection.responseHead {
      console.error(Formatter(pretty: Pretty(colors: console.errorIsTerminal, format: false)).responseHead(file.head))
    }
    let resumed = file.resumedFrom.map { " (resumed from \(ProgressLine.size($0)))" } ?? ""
    let received = file.byteCount - (file.resumedFrom ?? 0)
    console.error(
      "Done. \(ProgressLine.size(file.byteCount)) in \(String(format: "%.2f", seconds)) s "
        + "(\(ProgressLine.size(Int64(Double(received) / seconds)))/s)\(resumed): \(file.location.path)\n"
    )
    // A 416 to a resumed download whose file was complete already is a success.
    let complete = file.head.status.code == 416 && file.resumedFrom == file.byteCount
    return checked(complete ? 200 : file.head.status.code, options: options)
  }

  /// `--continue` on a partial file of another tool (``PartialFile``): asks for the bytes from its size on, then
  /// appends a `206` that continues it, writes a whole `200` beside it and renames it into place, or finds a `416`
  /// that says it is complete.
  func continuePartial(
    at destination: URL,
    from offset: Int64,
    spec: RequestSpec,
    networking: Networking<SurfEndpoint>,
    options: SurfOptions,
    bar: ProgressBar?
  ) async throws -> DownloadedFile {
    var ranged = spec
    ranged.headers.removeAll { ["range", "if-range", "accept-encoding"].contains($0.name.lowercased()) }
    ranged.headers += [("Range", "bytes=\(offset)-"), ("Accept-Encoding", "identity")]
    let response = try await networking.stream(SurfEndpoint(request: ranged.request()))
    let head = response.head
    let decision = PartialFile.decide(
      status: head.status.code,
      contentRange: head.headerFields[.contentRange],
      contentEncoding: head.headerFields[.contentEncoding],
      offset: offset
    )
    let file = { (count: Int64, resumed: Int64?) in
      DownloadedFile(
        location: destination,
        head: head,
        responseURL: response.url,
        byteCount: count,
        resumedFrom: resumed
      )
    }
    let expected: Int64?
    let total: Int64?
    let handle: FileHandle
    var temporary: URL?
    switch decision {
    case .complete:
      return file(offset, offset)
    case .notAFile:
      let code = head.status.code
      let status = options.checkStatus ? SurfExitStatus.checking(code) : .error
      throw SurfError(status: status == .success ? .error : status, message: "download failed: HTTP \(code)")
    case .mismatch(let message):
      throw SurfError(status: .error, message: "download failed (rangeMismatch): \(message)")
    case .append(let length, let complete):
      if let maxBytes = options.maxDownloadSize, offset + length > maxBytes {
        throw Self.tooLarge(
          "the response announces \(offset + length) bytes, more than the download's limit of \(maxBytes)"
        )
      }
      expected = length
      total = complete ?? offset + length
      handle = try FileHandle(forWritingTo: destination)
      try handle.seekToEnd()
    case .writeWhole:
      expected = head.headerFields[.contentLength].flatMap { Int64($0) }
      total = expected
      if let maxBytes = options.maxDownloadSize, let expected, expected > maxBytes {
        throw Self.tooLarge("the response announces \(expected) bytes, more than the download's limit of \(maxBytes)")
      }
      let directory = destination.deletingLastPathComponent()
      let name = ".\(destination.lastPathComponent).\(UUID().uuidString).download"
      temporary = directory.appendingPathComponent(name)
      guard let temporary, FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
        throw SurfError(status: .error, message: "download failed: cannot create a file in \(directory.path)")
      }
      handle = try FileHandle(forWritingTo: temporary)
    }
    defer { try? handle.close() }
    let start = temporary == nil ? offset : 0
    var written: Int64 = 0
    do {
      for try await chunk in response.body {
        if let maxBytes = options.maxDownloadSize, start + written + Int64(chunk.count) > maxBytes {
          throw Self.tooLarge("the body went past the download's limit of \(maxBytes) bytes")
        }
        try handle.write(contentsOf: chunk)
        written += Int64(chunk.count)
        bar?.update(done: start + written, total: total)
      }
      if let expected, written != expected {
        throw SurfError(
          status: .error,
          message: "download failed (\(temporary == nil ? "rangeMismatch" : "lengthMismatch")): the body carried "
            + "\(written) bytes where the response announced \(expected)"
        )
      }
      try handle.synchronize()
      if let temporary {
        guard rename(temporary.path, destination.path) == 0 else {
          throw SurfError(status: .error, message: "download failed: cannot move the file to \(destination.path)")
        }
        return file(written, nil)
      }
      return file(offset + written, offset)
    } catch {
      if let temporary { try? FileManager.default.removeItem(at: temporary) }
      throw error
    }
  }

  static func tooLarge(_ message: String) -> SurfError {
    SurfError(status: .error, message: "download failed (bodyTooLarge): \(message)")
  }

  /// Where a download goes: `--output`, else the URL's last path component (`index.html` for `/`) in the current
  /// directory, with `-1`, `-2`, … added when that file exists and the download is not resumed.
  func destination(for url: URL, options: SurfOptions) -> URL {
    let directory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
    if let output = options.output {
      return URL(fileURLWithPath: (output as NSString).expandingTildeInPath, relativeTo: directory).standardizedFileURL
    }
    let name = url.lastPathComponent.isEmpty || url.lastPathComponent == "/" ? "index.html" : url.lastPathComponent
    var candidate = directory.appendingPathComponent(name)
    var suffix = 0
    while !options.resume, FileManager.default.fileExists(atPath: candidate.path) {
      suffix += 1
      candidate = directory.appendingPathComponent("\(name)-\(suffix)")
    }
    return candidate
  }

  // MARK: - Errors

  func failure(_ error: any Error, options: SurfOptions, spec: RequestSpec) -> SurfError {
    let failure = Self.failure(error, target: "\(spec.method) \(spec.url.absoluteString)")
    if options.storeIfUnreachable, let transportError = Self.transportError(in: error),
      Networking<SurfEndpoint>.offlineErrorCodes.contains(transportError.code)
    {
      let host = spec.url.host ?? ""
      return SurfError(
        status: .storedOffline,
        message: "\(host) cannot be reached (\(transportError.code)); the request is stored: `surf replay` sends it",
        underlyingError: error
      )
    }
    return failure
  }

  static func transportError(in error: any Error) -> TransportError? {
    if let error = error as? TransportError { return error }
    if let error = error as? NetworkError, let underlying = error.underlyingError {
      return transportError(in: underlying)
    }
    return nil
  }

  /// One line and an exit status for a failed request.
  /// - Parameters:
  ///   - error: What the request failed with.
  ///   - target: `METHOD URL`, named instead of the transport's own words for a refused connection or a host name
  ///     that does not resolve (whose messages say little more).
  static func failure(_ error: any Error, target: String? = nil) -> SurfError {
    if let transportError = transportError(in: error) {
      let status: SurfExitStatus =
        transportError.isTimeout ? .timeout : transportError.code == .tooManyRedirects ? .tooManyRedirects : .error
      let what: String
      switch transportError.code {
      case .connectionRefused: what = "connection refused"
      case .dnsFailure: what = "cannot resolve the host name"
      case .connectTimeout: what = "timed out while connecting"
      case .idleTimeout: what = "timed out: no data moved"
      case .totalTimeout: what = "timed out"
      case .tls: what = "TLS failed"
      case .tooManyRedirects: what = "too many redirects"
      case .addressNotAllowed: what = "address not allowed"
      default: what = "\(transportError.code)"
      }
      let detail =
        [.connectionRefused, .dnsFailure].contains(transportError.code)
        ? target ?? transportError.message
        : transportError.message
      return SurfError(status: status, message: "\(what): \(detail)", underlyingError: error)
    }
    if let error = error as? NetworkError {
      if let download = error.underlyingError as? DownloadError {
        return SurfError(
          status: .error,
          message: "download failed (\(download.code)): \(download.message)",
          underlyingError: error
        )
      }
      return SurfError(status: .error, message: "\(error.code): \(error.message)", underlyingError: error)
    }
    if error is CancellationError { return SurfError(status: .interrupted, message: "interrupted") }
    return SurfError(status: .error, message: "\(error)", underlyingError: error)
  }
}

extension Surf {
  /// The transport of `--record DIR` (the real one, recording into `DIR`) or `--replay DIR` (the cassette alone), or
  /// `transport` as it is.
  static func cassette(around transport: TransportKind, options: SurfOptions) throws(SurfError) -> TransportKind {
    switch (options.record, options.replay) {
    case (nil, nil):
      return transport
    case (_?, _?):
      throw SurfError.usage("--record and --replay cannot be used together")
    case (nil, let directory?):
      return .custom(CassetteTransport(replaying: URL(fileURLWithPath: directory)))
    case (let directory?, nil):
      let real: any Transport
      switch transport {
      #if canImport(MalibuCurl)
      case .curl: real = CurlTransport.shared
      #endif
      case .urlSession: real = URLSessionTransport()
      case .custom(let custom): real = custom
      }
      return .custom(CassetteTransport(recording: URL(fileURLWithPath: directory), through: real, mode: .appending))
    }
  }
}
