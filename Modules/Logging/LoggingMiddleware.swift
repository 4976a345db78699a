public import HTTPTypes
import MalibuCore
public import MalibuTransport

/// Middleware that logs each request when it is sent, its response when the head arrives and its error when it
/// fails, through a ``NetworkLogger``.
///
/// The response body is never read for logging: its size is the length the server announced (or `Content-Length`),
/// and the body reaches the caller untouched, streaming included. Place it outermost to log each call once, or
/// innermost (after retry or auth middleware) to log every attempt. Outermost, the records of a finished request
/// carry how often the middleware below sent it again (``LogMetadataKey/resendCount``, counted through
/// `TransferAttempts`).
///
/// ```swift
/// let logger = NetworkLogger(level: .info, logger: appLogger)
/// let transport = CurlTransport().with(middleware: [LoggingMiddleware(logger: logger)])
/// // trace: request sent http.request.method=GET url.full=https://example.com/boards?token=<redacted>
/// // debug: response received http.request.method=GET url.full=https://example.com/boards?token=<redacted>
/// //        http.response.status_code=200 http.duration_ms=12.0 http.response.body.size=42 http.request.resend_count=0
/// ```
public struct LoggingMiddleware: Middleware {
  /// Where the settings and loggers come from.
  public let logger: NetworkLogger
  private let clock: any Clock<Duration>

  /// Creates the middleware.
  /// - Parameters:
  ///   - logger: The settings and loggers; ``NetworkLogger/shared`` (`Malibu.logger`) by default.
  ///   - clock: Measures durations; a `ContinuousClock` by default (tests pass their own).
  public init(logger: NetworkLogger = .shared, clock: any Clock<Duration> = ContinuousClock()) {
    self.logger = logger
    self.clock = clock
  }

  /// Logs the request, sends it on, and logs the response or the error.
  /// - Parameters:
  ///   - request: The request head.
  ///   - body: The request body, if any; only summarized, never read.
  ///   - options: The transfer options, passed on unchanged.
  ///   - next: The rest of the chain.
  /// - Returns: The response of the rest of the chain, unchanged.
  /// - Throws: The error of the rest of the chain, unchanged, after it is logged.
  public func intercept(
    _ request: HTTPRequest,
    body: RequestBody?,
    options: TransferOptions,
    next: Next
  ) async throws -> TransportResponse {
    let settings = logger.snapshot()
    guard settings.level != .none else { return try await next(request, body, options) }
    let elapsed = Self.stopwatch(clock)
    var record: LoggedRequest?
    if settings.level >= .info {
      let logged = settings.record(of: request, body: body)
      settings.requestLogger.log(request: logged, level: settings.level)
      record = logged
    }
    // Middleware below that sends the request again (token refresh's retry) counts it here.
    let attempts = TransferAttempts()
    do {
      let response = try await TransferAttempts.$current.withValue(attempts) {
        try await next(request, body, options)
      }
      if var record {
        record.resendCount = attempts.resendCount
        let length = response.body.expectedLength ?? response.head.headerFields[.contentLength].flatMap { Int($0) }
        settings.responseLogger.log(
          response: settings.record(of: response.head, request: record, duration: elapsed(), length: length),
          level: settings.level
        )
      }
      return response
    } catch {
      var failed = record ?? settings.record(of: request, body: body)
      failed.resendCount = attempts.resendCount
      settings.errorLogger.log(error: error, request: failed, duration: elapsed(), level: settings.level)
      throw error
    }
  }

  private static func stopwatch<C: Clock<Duration>>(_ clock: C) -> @Sendable () -> Duration {
    let start = clock.now
    return { start.duration(to: clock.now) }
  }
}
