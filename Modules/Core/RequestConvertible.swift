/// A type that describes the requests of one API service, usually an enum with a case per endpoint.
///
/// ```swift
/// enum SharkywatersEndpoint: RequestConvertible {
///   case fetchBoards
///   case showBoard(id: Int)
///
///   static let baseUrl: (any URLStringConvertible)? = "http://127.0.0.1:8080/api/"
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
///
/// `baseUrl` has no default: every conforming type declares it with exactly this type, `nil` when its resources
/// are absolute URLs (`static let baseUrl: (any URLStringConvertible)? = nil`). A declaration of another type — a
/// `String` (`static let baseUrl = "https://…"`), a `URL?`, a non-optional `any URLStringConvertible` — would not
/// be the protocol's requirement, and with a default it would be ignored without a word; without one, it fails to
/// compile with "type '…' does not conform to protocol 'RequestConvertible'" and a note naming the candidate's
/// non-matching type. `URLStringConvertible?` is the same type as `(any URLStringConvertible)?`; with the
/// `ExistentialAny` upcoming feature it draws a warning asking for `any`. A stored `static var` (as in Malibu's
/// earlier README) is a Swift 6 error ("not concurrency-safe because it is nonisolated global shared mutable
/// state"): make it a `static let`, or a computed `static var`.
public protocol RequestConvertible: Sendable {
  /// The base URL every request of this service is scoped by, or `nil` when the resources are absolute URLs.
  ///
  /// Declare it with this exact type: `static let baseUrl: (any URLStringConvertible)? = "https://…"`.
  static var baseUrl: (any URLStringConvertible)? { get }
  /// Headers added to every request of this service; `[:]` by default.
  static var headers: [String: String] { get }
  /// The request this value describes.
  var request: Request { get }
}

// No default for `baseUrl`: a default would silently win over a conformer's `baseUrl` of another type.
extension RequestConvertible {
  /// No service-wide headers.
  public static var headers: [String: String] { [:] }
}
