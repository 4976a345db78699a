import Foundation
import HTTPTypes
import MalibuCore
import MalibuMocking
import MalibuTransport
import Synchronization
import Testing

@Suite("MockTransport")
struct MockTransportTests {
  struct StubCase: Sendable, CustomTestStringConvertible {
    let pattern: MockTransport.PathPattern
    let label: String
    let path: String
    let matches: Bool
    var testDescription: String { "\(label) vs \(path)" }
  }

  static let stubCases: [StubCase] = [
    StubCase(pattern: "/boards", label: "/boards", path: "/boards", matches: true),
    StubCase(pattern: "/boards", label: "/boards", path: "/boards?page=2", matches: true),
    StubCase(pattern: "/boards", label: "/boards", path: "/boards/1", matches: false),
    StubCase(pattern: "/boards?page=2", label: "/boards?page=2", path: "/boards?page=2", matches: true),
    StubCase(pattern: "/boards?page=2", label: "/boards?page=2", path: "/boards?page=3", matches: false),
    StubCase(pattern: "/boards/*", label: "/boards/*", path: "/boards/42", matches: true),
    StubCase(pattern: "/boards/*", label: "/boards/*", path: "/boards", matches: false),
    StubCase(pattern: "/boards/*", label: "/boards/*", path: "/boards/42/pins", matches: false),
    StubCase(pattern: "/boards/*/pins", label: "/boards/*/pins", path: "/boards/7/pins?x=1", matches: true),
    StubCase(pattern: "/files/**", label: "/files/**", path: "/files", matches: true),
    StubCase(pattern: "/files/**", label: "/files/**", path: "/files/a/b/c", matches: true),
    StubCase(pattern: "/files/**/end", label: "/files/**/end", path: "/files/a/b/end", matches: true),
    StubCase(pattern: "/files/**/end", label: "/files/**/end", path: "/files/a/b", matches: false),
    StubCase(pattern: .exact("/boards/*"), label: "exact /boards/*", path: "/boards/1", matches: false),
    StubCase(pattern: .exact("/boards/*"), label: "exact /boards/*", path: "/boards/*", matches: true),
    StubCase(pattern: .any, label: "any", path: "/whatever/else", matches: true),
    StubCase(
      pattern: .matching { $0.path?.hasSuffix(".json") == true },
      label: "predicate .json",
      path: "/data/boards.json",
      matches: true
    ),
    StubCase(
      pattern: .matching { $0.path?.hasSuffix(".json") == true },
      label: "predicate .json",
      path: "/data/boards.xml",
      matches: false
    ),
  ]

  @Test("stubs match exact paths and patterns", arguments: stubCases)
  func stubMatching(_ testCase: StubCase) async throws {
    let transport = MockTransport()
    transport.stub(.get, testCase.pattern, status: .ok, body: Data("hit".utf8))
    let error = await caughtError {
      let (head, data, url) = try await transport.data(
        for: makeRequest(.get, testCase.path),
        body: nil,
        options: TransferOptions(),
        upTo: 1 << 20
      )
      #expect(head.status == .ok)
      #expect(data == Data("hit".utf8))
      #expect(url?.absoluteString == "http://127.0.0.1:8080\(testCase.path)")
    }
    if testCase.matches {
      #expect(error == nil)
    } else {
      #expect((error as? TransportError)?.code == .other)
    }
  }

  @Test("a stub answers only its method", arguments: [HTTPRequest.Method.post, .put, .delete, .head, .patch])
  func methodMismatch(_ method: HTTPRequest.Method) async throws {
    let transport = MockTransport()
    transport.stub(.get, "/boards", status: .ok)
    let error = await caughtError {
      _ = try await transport.send(makeRequest(method, "/boards"), body: nil, options: TransferOptions())
    }
    let transportError = try #require(error as? TransportError)
    #expect(transportError.code == .other)
    #expect(transportError.message.contains(method.rawValue))
  }

  @Test("the most recent matching stub wins")
  func laterStubWins() async throws {
    let transport = MockTransport()
    transport.stub(.get, "/boards/*", status: .ok)
    transport.stub(.get, "/boards/2", status: .notFound)
    let first = try await transport.send(makeRequest(.get, "/boards/1"), body: nil, options: TransferOptions())
    let second = try await transport.send(makeRequest(.get, "/boards/2"), body: nil, options: TransferOptions())
    #expect(first.head.status == .ok)
    #expect(second.head.status == .notFound)
  }

  @Test("a response carries status, header fields and body")
  func fullResponse() async throws {
    let transport = MockTransport()
    let body = Data(#"{"id":1}"#.utf8)
    transport.stub(.post, "/boards", status: .created, headerFields: [.contentType: "application/json"], body: body)
    let response = try await transport.send(makeRequest(.post, "/boards"), body: nil, options: TransferOptions())
    #expect(response.head.status == .created)
    #expect(response.head.headerFields[.contentType] == "application/json")
    #expect(try await response.body.collect(upTo: 1024) == body)
  }

  static let errorCodes: [TransportError.Code] = [
    .connectTimeout, .idleTimeout, .totalTimeout, .cancelled, .connectionRefused, .connectionReset, .dnsFailure,
    .tls, .tooManyRedirects, .bodyTooLarge, .decodingFailed, .invalidRequest, .unsupportedOption, .other,
  ]

  @Test("a stub can fail with any TransportError code", arguments: errorCodes)
  func stubbedErrors(_ code: TransportError.Code) async throws {
    let transport = MockTransport()
    transport.stub(.get, "/fail", error: TransportError(code: code, message: "scripted \(code)"))
    let error = await caughtError {
      _ = try await transport.send(makeRequest(.get, "/fail"), body: nil, options: TransferOptions())
    }
    let transportError = try #require(error as? TransportError)
    #expect(transportError.code == code)
    #expect(transportError.message == "scripted \(code)")
    #expect(transport.recordedRequests.count == 1)
  }

  @Test("an unmatched request fails with a message naming the method and the URL")
  func unmatchedRequest() async throws {
    let transport = MockTransport()
    let error = await caughtError {
      _ = try await transport.send(makeRequest(.delete, "/boards/9?force=1"), body: nil, options: TransferOptions())
    }
    let transportError = try #require(error as? TransportError)
    #expect(transportError.code == .other)
    #expect(transportError.message.contains("DELETE http://127.0.0.1:8080/boards/9?force=1"))
    #expect(transport.recordedRequests.map(\.path) == ["/boards/9?force=1"])
  }

  @Test("a fallback reply answers unmatched requests")
  func fallbackReply() async throws {
    let transport = MockTransport(fallback: MockTransport.Reply(status: .notFound))
    let response = try await transport.send(makeRequest(.get, "/nothing"), body: nil, options: TransferOptions())
    #expect(response.head.status == .notFound)
  }

  @Test("a request without an absolute URL is invalid")
  func invalidRequests() async throws {
    let transport = MockTransport(fallback: MockTransport.Reply())
    let relative = HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/boards")
    let error = await caughtError { _ = try await transport.send(relative, body: nil, options: TransferOptions()) }
    #expect((error as? TransportError)?.code == .invalidRequest)
  }

  struct Custom: Error {}

  @Test("a handler's own error is wrapped in .other; a mock's error passes through as it is")
  func handlerAndMockErrors() async throws {
    let transport = MockTransport()
    transport.stub(.get, "/handler") { _ in throw Custom() }
    transport.stub(.get, "/mock", mock: Mock(httpResponse: HTTPResponse(status: .ok), error: Custom()))
    let handlerError = await caughtError {
      _ = try await transport.send(makeRequest(.get, "/handler"), body: nil, options: TransferOptions())
    }
    let wrapped = try #require(handlerError as? TransportError)
    #expect(wrapped.code == .other)
    #expect(wrapped.underlyingError is Custom)
    let mockError = await caughtError {
      _ = try await transport.send(makeRequest(.get, "/mock"), body: nil, options: TransferOptions())
    }
    #expect(mockError is Custom)
  }
}
