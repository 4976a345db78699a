/// A type that describes the requests of one API service, usually an enum with a case per endpoint.
///
/// ```swift
/// enum SharkywatersEndpoint: RequestConvertible {
///   case fetchBoards
///   case showBoard(id: Int)
///
///   static let baseUrl: URLStringConvertible? = "http://127.0.0.1:8080/api/"
///   static let headers: [String: String] = ["Accept": "application/json"]
///
///   var request: Request {
///     switch self {
///     case .fetchBoards: return .get("boards")
///     case .showBoard(let id): return .get("boards/\(id)")
///     }
///   }
/// }
/// ```
public protocol RequestConvertible: Sendable {
  /// The base URL every request of this service is scoped by; `nil` (the default) when resources are absolute.
  static var baseUrl: (any URLStringConvertible)? { get }
  /// Headers added to every request of this service; `[:]` by default.
  static var headers: [String: String] { get }
  /// The request this value describes.
  var request: Request { get }
}

extension RequestConvertible {
  /// No base URL: every resource must be an absolute URL.
  public static var baseUrl: (any URLStringConvertible)? { nil }
  /// No service-wide headers.
  public static var headers: [String: String] { [:] }
}
