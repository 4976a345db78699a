#if Tracing
public import HTTPTypes
public import MalibuTransport

/// The error ``TracingMiddleware`` records on a span: the failure's type, code and description, with the request's
/// secrets scrubbed, since a tracer exports what it is given (the caller still gets the original error).
///
/// ```swift
/// let recorded = span.errors.first?.error as? TracedError
/// print(recorded?.code ?? "")   // "connectionRefused"
/// ```
public struct TracedError: Error, Sendable, CustomStringConvertible {
  /// The original error's type name, `TransportError`.
  public var type: String
  /// The error's low-cardinality code, as `error.type` has it (`connectionRefused`, or the type name).
  public var code: String
  /// The original error's description, secret values of the request replaced.
  public var message: String

  /// Describes `error` without the secrets of `request`.
  /// - Parameters:
  ///   - error: The error.
  ///   - request: The request that failed.
  ///   - redactor: Which header and query values are secret.
  public init(_ error: any Error, scrubbing request: HTTPRequest, with redactor: Redactor) {
    type = String(describing: Swift.type(of: error))
    code = HTTPConventions.errorType(of: error)
    message = redactor.scrub(String(describing: error), of: request)
  }

  /// The scrubbed description.
  public var description: String { message }
}
#endif
