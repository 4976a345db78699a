// A stand-in for a server framework (Vapor 4, Hummingbird 2) and swift-openapi-urlsession: each declares types named
// as Malibu's. Tests/MalibuTests/NameClashTests.swift imports it beside Malibu.

/// A server framework's incoming request, named as Vapor's and Hummingbird's.
public struct Request: Sendable {
  /// The path the client asked for.
  public var path: String

  /// A request for a path.
  /// - Parameter path: The path.
  public init(path: String) {
    self.path = path
  }
}

/// A server framework's outgoing response.
public struct Response: Sendable {
  /// The status code.
  public var status: Int

  /// A response with a status code.
  /// - Parameter status: The status code.
  public init(status: Int) {
    self.status = status
  }
}

/// A server framework's middleware: it sees each incoming request before its route.
public protocol Middleware: Sendable {
  /// Answers a request, or hands it to `next`.
  /// - Parameters:
  ///   - request: The incoming request.
  ///   - next: The rest of the chain.
  /// - Returns: The response.
  func respond(to request: Request, next: (Request) async throws -> Response) async throws -> Response
}

/// swift-openapi-urlsession's client transport, named as Malibu's.
public struct URLSessionTransport: Sendable {
  /// A transport.
  public init() {}
}
