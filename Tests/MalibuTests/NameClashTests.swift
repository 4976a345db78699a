import Malibu
import MalibuNameClashStandIn
import Testing

// A server's route file imports its framework beside Malibu. Both declare `Request`, `Response` and `Middleware`, and
// swift-openapi-urlsession a `URLSessionTransport`, so those names alone are ambiguous; the module name picks one:
// `Malibu.Request` is Malibu's (the module declares no type named `Malibu` that would capture the lookup) and
// `MalibuNameClashStandIn.Request` the framework's. That this file compiles is most of the test.

/// A Malibu transport middleware, beside a framework middleware of the same protocol name.
private struct StampMiddleware: Malibu.Middleware {
  func intercept(
    _ request: HTTPRequest,
    body: RequestBody?,
    options: TransferOptions,
    next: Next
  ) async throws -> TransportResponse {
    var request = request
    request.headerFields[HTTPField.Name("X-Stamp")!] = "malibu"
    return try await next(request, body, options)
  }
}

/// The framework's middleware, named by its module.
private struct FrameworkMiddleware: MalibuNameClashStandIn.Middleware {
  func respond(
    to request: MalibuNameClashStandIn.Request,
    next: (MalibuNameClashStandIn.Request) async throws -> MalibuNameClashStandIn.Response
  ) async throws -> MalibuNameClashStandIn.Response {
    try await next(request)
  }
}

/// A Malibu endpoint, beside a framework's `Request`.
private struct Hello: Malibu.RequestConvertible {
  static let baseUrl: (any URLStringConvertible)? = "http://127.0.0.1:8080/"
  let request: Malibu.Request = .get("hello")
}

@Suite("Names beside a server framework")
struct NameClashTests {
  @Test func malibuTypesAreNamedByTheirModule() async throws {
    let mock = MockTransport(
      fallback: MockTransport.Reply(status: .ok, headerFields: [.contentType: "text/plain"], body: Data("hi".utf8))
    )
    let transport = MiddlewareTransport(transport: mock, middleware: [StampMiddleware()])
    let networking = Malibu.Networking<Hello>(transport: .custom(transport))
    let response: Malibu.Response = try await networking.request(Hello()).validate().value
    #expect(response.status == .ok)
    #expect(String(decoding: response.data, as: UTF8.self) == "hi")
    #expect(mock.recordedRequests.first?.headerFields[HTTPField.Name("X-Stamp")!] == "malibu")
    let malibuTransport: any Malibu.Transport = Malibu.URLSessionTransport()
    #expect(malibuTransport is Malibu.URLSessionTransport)
  }

  @Test func frameworkTypesAreNamedByTheirs() async throws {
    let answer = try await FrameworkMiddleware().respond(to: MalibuNameClashStandIn.Request(path: "/route")) {
      request in
      MalibuNameClashStandIn.Response(status: request.path == "/route" ? 200 : 404)
    }
    #expect(answer.status == 200)
    let openAPITransport: any Sendable = MalibuNameClashStandIn.URLSessionTransport()
    #expect(openAPITransport is MalibuNameClashStandIn.URLSessionTransport)
    #expect(!(openAPITransport is Malibu.URLSessionTransport))
  }
}
