import Foundation
import Malibu
import MalibuTestSupport
import Testing

/// An endpoint type that declares no base URL: its requests must use absolute URLs.
private enum Unscoped: RequestConvertible {
  case relative
  case absolute(String)

  static let baseUrl: (any URLStringConvertible)? = nil

  var request: Request {
    switch self {
    case .relative: return .get("boards")
    case .absolute(let url): return .get(url, cachePolicy: .reloadIgnoringLocalCacheData)
    }
  }
}

/// Error messages met through a networking say what to change; the networking serves the next request.
@Suite struct TeachingErrorsTests {
  private static func makeTransport(_ name: String) -> any Transport {
    name == "curl" ? CurlTransport() : URLSessionTransport()
  }

  private static func shutdown(_ transport: any Transport) {
    (transport as? CurlTransport)?.shutdown()
    (transport as? URLSessionTransport)?.shutdown()
  }

  @Test func aRelativeResourceWithoutABaseURLNamesTheDeclarationInTheType() async throws {
    let server = try TestServer(echo: .body)
    let transport = CurlTransport()
    defer {
      transport.shutdown()
      server.stop()
    }
    let networking = Networking<Unscoped>(transport: .custom(transport))
    let error = await #expect(throws: NetworkError.self) { try await networking.request(.relative).value }
    #expect(error?.code == .invalidURL)
    #expect(
      error?.message == "the resource 'boards' is relative, and Unscoped.baseUrl is nil: declare "
        + "`static let baseUrl: (any URLStringConvertible)? = \"https://…\"` in Unscoped (exactly this type), or make "
        + "the resource an absolute URL"
    )
    let data = try await networking.request(.absolute(server.url("/bytes?size=10").absoluteString)).validate()
      .toData().value
    #expect(data == pattern(10))
  }

  @Test(arguments: ["curl", "urlSession"])
  func aDecodeFailureOnA404SuggestsValidate(transportName: String) async throws {
    let server = try TestServer(echo: .body)
    let transport = Self.makeTransport(transportName)
    defer {
      Self.shutdown(transport)
      server.stop()
    }
    let networking = Networking<Unscoped>(transport: .custom(transport))
    let missing = Unscoped.absolute(server.url("/status/404").absoluteString)

    // Without validate(), the 404 is a response like any other: its text, then a decoding error that says why.
    #expect(try await networking.request(missing).toString().value == "status 404")
    let error = await #expect(throws: NetworkError.self) {
      try await networking.request(missing).decode(using: [Int].self).value
    }
    #expect(error?.code == .decodingFailed)
    #expect(
      error?.message.hasSuffix(
        "; the response has status 404, no Content-Type and a body of 10 bytes: \"status 404\". A 404 status is not an "
          + "error until you call validate(): call it before decoding (`.validate().decode(…)`) to fail with "
          + "unacceptableStatusCode instead"
      ) == true,
      "\(error?.message ?? "")"
    )
    // With validate(), the status is the error.
    let validated = await #expect(throws: NetworkError.self) {
      try await networking.request(missing).validate().decode(using: [Int].self).value
    }
    #expect(validated?.code == .unacceptableStatusCode)
    let data = try await networking.request(.absolute(server.url("/bytes?size=10").absoluteString)).validate()
      .toData().value
    #expect(data == pattern(10))
  }

  @Test(arguments: ["curl", "urlSession"])
  func aBodyPastTheResponseLimitNamesMaximumResponseSize(transportName: String) async throws {
    let server = try TestServer(echo: .body)
    let transport = Self.makeTransport(transportName)
    defer {
      Self.shutdown(transport)
      server.stop()
    }
    let networking = Networking<Unscoped>(transport: .custom(transport))
    networking.maximumResponseSize = 100
    let error = await #expect(throws: NetworkError.self) {
      try await networking.request(.absolute(server.url("/bytes?size=1000").absoluteString)).value
    }
    let transportError = try #require(error?.underlyingError as? TransportError)
    #expect(transportError.code == .bodyTooLarge)
    #expect(
      transportError.message.hasSuffix(
        "is larger than the limit of 100 bytes: raise `Networking.maximumResponseSize`, or the `upTo:` argument when "
          + "calling a transport's `data(for:body:options:upTo:)` directly"
      ),
      "\(transportError.message)"
    )
    // The cause's text is said once.
    let description = error?.description ?? ""
    #expect(description.components(separatedBy: "maximumResponseSize").count == 2, "\(description)")
    let data = try await networking.request(.absolute(server.url("/bytes?size=100").absoluteString)).value.data
    #expect(data == pattern(100))
  }

  @Test func aDecodedBodyPastTheDecompressionLimitNamesTransferOptions() async throws {
    let server = try TestServer(echo: .body)
    let transport = CurlTransport()
    defer {
      transport.shutdown()
      server.stop()
    }
    let networking = Networking<Unscoped>(transport: .custom(transport))
    networking.transferOptions.decompression = .enabled(limit: 1000)
    let error = await #expect(throws: NetworkError.self) {
      try await networking.request(.absolute(server.url("/gzip-zeros?size=100000").absoluteString)).value
    }
    let transportError = try #require(error?.underlyingError as? TransportError)
    #expect(transportError.code == .bodyTooLarge)
    #expect(
      transportError.message == "the decoded body is larger than the decompression limit of 1000 bytes: raise "
        + "`TransferOptions.decompression` (`.enabled(limit:)`; on a networking, `transferOptions.decompression`)"
    )
    let data = try await networking.request(.absolute(server.url("/gzip?size=500").absoluteString)).value.data
    #expect(data == pattern(500))
  }

  @Test func plainTextLabelledGzipSaysItIsNotCompressedOnce() async throws {
    let server = try TestServer(echo: .body)
    let transport = CurlTransport()
    defer {
      transport.shutdown()
      server.stop()
    }
    let networking = Networking<Unscoped>(transport: .custom(transport))
    let error = await #expect(throws: NetworkError.self) {
      try await networking.request(.absolute(server.url("/not-gzip").absoluteString)).value
    }
    #expect(error?.code == .transportFailed)
    let expected =
      "the response body could not be decoded: the data is not gzip, and not compressed data: a "
      + "gzip stream starts with 1f 8b, it starts with 6e 6f 74 20 (\"not \") (zlib: incorrect header check)"
    #expect(error?.message == expected)
    #expect(
      error?.description
        == "NetworkError.transportFailed: \(expected) (cause: TransportError.decodingFailed (cause: GzipError.corrupt))"
    )
    #expect(error?.description.contains("rawDeflate") == false)
    let data = try await networking.request(.absolute(server.url("/gzip?size=500").absoluteString)).value.data
    #expect(data == pattern(500))
  }
}
