public import HTTPTypes
public import Logging
@_spi(Malibu) public import MalibuCore
public import MalibuTransport

/// The logging settings of Malibu: the level, the swift-log `Logger` records go to, the three replaceable loggers and
/// what is redacted.
///
/// Records are single-line swift-log records at `.debug` (responses, failures) and `.trace` (requests sent,
/// cancellations), their details in metadata (``LogMetadataKey``); the ``level`` decides which are written at all
/// (see ``LogLevel``), the `Logger`'s own `logLevel` filters further. The facade exposes ``shared`` as
/// `Malibu.logger`; a networking given the application's `Logger` gets a logger of its own. Every setting can be
/// changed at any time from any thread; a request reads them once when it starts.
///
/// ```swift
/// Malibu.logger.level = .verbose
/// Malibu.logger.logger = appLogger               // the application's swift-log Logger
/// Malibu.logger.redactedParameterKeys.insert("pin")
/// let transport = CurlTransport().with(middleware: [LoggingMiddleware(logger: Malibu.logger)])
/// ```
public final class NetworkLogger: Sendable {
  struct Settings: Sendable {
    var level: LogLevel
    var destination: Logger
    var errorLogger: any ErrorLogging
    var requestLogger: any RequestLogging
    var responseLogger: any ResponseLogging
    var redactor: Redactor
  }

  /// The logger the facade uses (`Malibu.logger`); its level starts at ``LogLevel/none``.
  public static let shared = NetworkLogger()

  private let settings: Locked<Settings>

  /// Creates a logger whose default loggers write to a swift-log `Logger`.
  /// - Parameters:
  ///   - level: How much to write; ``LogLevel/none`` by default, so a library stays quiet until asked.
  ///   - logger: Where the default ``ErrorLogger``, ``RequestLogger`` and ``ResponseLogger`` write; by default a
  ///     swift-log logger labelled `malibu`, which follows `LoggingSystem.bootstrap`.
  ///   - redactor: What is redacted; `Redactor.init(headerNames:parameterKeys:bodyPreviewLimit:)` by default.
  public init(level: LogLevel = .none, logger: Logger = Logger(label: "malibu"), redactor: Redactor = Redactor()) {
    settings = Locked(
      Settings(
        level: level,
        destination: logger,
        errorLogger: ErrorLogger(logger: logger),
        requestLogger: RequestLogger(logger: logger),
        responseLogger: ResponseLogger(logger: logger),
        redactor: redactor
      )
    )
  }

  /// How much is written.
  public var level: LogLevel {
    get { settings.withLock { $0.level } }
    set { settings.withLock { $0.level = newValue } }
  }

  /// The swift-log `Logger` the default ``ErrorLogger``, ``RequestLogger`` and ``ResponseLogger`` write to: pass
  /// the application's, so that Malibu's records carry its label, handler and metadata.
  ///
  /// Setting it points those three defaults at the new `Logger`; a logger of your own (``errorLogger``, ...) is
  /// left as it is.
  public var logger: Logger {
    get { settings.withLock { $0.destination } }
    set { settings.withLock { $0.retarget(to: newValue) } }
  }

  /// A new logger with this one's level, redaction and custom loggers, whose default loggers write to `logger`.
  ///
  /// ```swift
  /// let perRequest = Malibu.logger.writing(to: requestLogger)
  /// ```
  /// - Parameter logger: The swift-log `Logger` to write to.
  /// - Returns: The new logger; changing it leaves this one alone.
  public func writing(to logger: Logger) -> NetworkLogger {
    var settings = snapshot()
    settings.retarget(to: logger)
    return NetworkLogger(settings: settings)
  }

  private init(settings: Settings) {
    self.settings = Locked(settings)
  }

  /// Writes errors; an ``ErrorLogger`` by default.
  public var errorLogger: any ErrorLogging {
    get { settings.withLock { $0.errorLogger } }
    set { settings.withLock { $0.errorLogger = newValue } }
  }

  /// Writes requests; a ``RequestLogger`` by default.
  public var requestLogger: any RequestLogging {
    get { settings.withLock { $0.requestLogger } }
    set { settings.withLock { $0.requestLogger = newValue } }
  }

  /// Writes responses; a ``ResponseLogger`` by default.
  public var responseLogger: any ResponseLogging {
    get { settings.withLock { $0.responseLogger } }
    set { settings.withLock { $0.responseLogger = newValue } }
  }

  /// What is redacted, and how long body previews are.
  public var redactor: Redactor {
    get { settings.withLock { $0.redactor } }
    set { settings.withLock { $0.redactor = newValue } }
  }

  /// Header names whose values are redacted (`Redactor.headerNames`).
  public var redactedHeaderNames: Set<String> {
    get { settings.withLock { $0.redactor.headerNames } }
    set { settings.withLock { $0.redactor.headerNames = newValue } }
  }

  /// Key fragments whose values are redacted in queries, form and JSON bodies and headers
  /// (`Redactor.parameterKeys`).
  public var redactedParameterKeys: Set<String> {
    get { settings.withLock { $0.redactor.parameterKeys } }
    set { settings.withLock { $0.redactor.parameterKeys = newValue } }
  }

  /// Logs a request as it is sent (``LogLevel/info`` and above, at swift-log `.trace`), for callers that do not use
  /// ``LoggingMiddleware``.
  /// - Parameters:
  ///   - request: The request head.
  ///   - body: The request body, if any; it is not read, only summarized.
  public func log(request: HTTPRequest, body: RequestBody? = nil) {
    let settings = snapshot()
    guard settings.level >= .info else { return }
    settings.requestLogger.log(request: settings.record(of: request, body: body), level: settings.level)
  }

  /// Logs a response as it arrives (``LogLevel/info`` and above, at swift-log `.debug`), for callers that do not use
  /// ``LoggingMiddleware``.
  /// - Parameters:
  ///   - response: The response head.
  ///   - request: The request it answers.
  ///   - duration: How long the request took.
  ///   - length: The body length, when known.
  public func log(response: HTTPResponse, for request: HTTPRequest, duration: Duration, length: Int? = nil) {
    let settings = snapshot()
    guard settings.level >= .info else { return }
    let record = settings.record(of: request, body: nil)
    settings.responseLogger.log(
      response: settings.record(of: response, request: record, duration: duration, length: length),
      level: settings.level
    )
  }

  /// Logs a failed check or conversion of a response (`validate()`, `toString()`, `decode(using:)`): a
  /// networking's responses report to that networking's logger, not to ``shared``.
  /// - Parameters:
  ///   - error: The error.
  ///   - response: The response; its request is logged.
  @_spi(Malibu) public func reportFailure(_ error: any Error, of response: Response) {
    log(error: error, request: response.request)
  }

  /// Logs an error that happened outside the transport — a validation or serialization failure, a request that
  /// could not be built (``LogLevel/error`` and above, at swift-log `.debug`).
  ///
  /// ```swift
  /// catch {
  ///   Malibu.logger.log(error: error, request: httpRequest)
  /// }
  /// ```
  /// - Parameters:
  ///   - error: The error.
  ///   - request: The request it happened to, if there is one.
  ///   - duration: How long the request ran, if measured.
  public func log(error: any Error, request: HTTPRequest? = nil, duration: Duration? = nil) {
    let settings = snapshot()
    guard settings.level >= .error else { return }
    let record = request.map { settings.record(of: $0, body: nil) }
    settings.errorLogger.log(error: error, request: record, duration: duration, level: settings.level)
  }

  /// The settings at this moment; loggers are called outside the lock, so they may use this logger themselves.
  func snapshot() -> Settings {
    settings.withLock { $0 }
  }
}

extension NetworkLogger.Settings {
  /// Points the default loggers at `logger`; loggers of other types are the caller's and stay.
  mutating func retarget(to logger: Logger) {
    destination = logger
    if errorLogger is ErrorLogger { errorLogger = ErrorLogger(logger: logger) }
    if requestLogger is RequestLogger { requestLogger = RequestLogger(logger: logger) }
    if responseLogger is ResponseLogger { responseLogger = ResponseLogger(logger: logger) }
  }
}

@_spi(Malibu) extension NetworkLogger: ResponseFailureReporting {}
