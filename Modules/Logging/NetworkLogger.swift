public import HTTPTypes
public import Logging
@_spi(Malibu) import MalibuCore
public import MalibuTransport

/// The logging settings of Malibu: the level, the three replaceable loggers and what is redacted.
///
/// The facade exposes ``shared`` as `Malibu.logger`. Every setting can be changed at any time from any thread;
/// a request reads them once when it starts.
///
/// ```swift
/// Malibu.logger.level = .verbose
/// Malibu.logger.redactedParameterKeys.insert("pin")
/// Malibu.logger.errorLogger = CrashReporterLogger()
/// let transport = CurlTransport().with(middleware: [LoggingMiddleware(logger: Malibu.logger)])
/// ```
public final class NetworkLogger: Sendable {
  struct Settings: Sendable {
    var level: LogLevel
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
  ///   - redactor: What is redacted; ``Redactor/init(headerNames:parameterKeys:bodyPreviewLimit:)`` by default.
  public init(level: LogLevel = .none, logger: Logger = Logger(label: "malibu"), redactor: Redactor = Redactor()) {
    settings = Locked(
      Settings(
        level: level,
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

  /// Header names whose values are redacted (``Redactor/headerNames``).
  public var redactedHeaderNames: Set<String> {
    get { settings.withLock { $0.redactor.headerNames } }
    set { settings.withLock { $0.redactor.headerNames = newValue } }
  }

  /// Key fragments whose values are redacted in queries, form and JSON bodies and headers
  /// (``Redactor/parameterKeys``).
  public var redactedParameterKeys: Set<String> {
    get { settings.withLock { $0.redactor.parameterKeys } }
    set { settings.withLock { $0.redactor.parameterKeys = newValue } }
  }

  /// Logs a request as it is sent (``LogLevel/info`` and above), for callers that do not use
  /// ``LoggingMiddleware``.
  /// - Parameters:
  ///   - request: The request head.
  ///   - body: The request body, if any; it is not read, only summarized.
  public func log(request: HTTPRequest, body: RequestBody? = nil) {
    let settings = snapshot()
    guard settings.level >= .info else { return }
    settings.requestLogger.log(request: settings.record(of: request, body: body), level: settings.level)
  }

  /// Logs a response as it arrives (``LogLevel/info`` and above), for callers that do not use
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

  /// Logs an error that happened outside the transport — a validation or serialization failure, a request that
  /// could not be built (``LogLevel/error`` and above).
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
