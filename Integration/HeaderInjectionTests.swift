import Foundation
import HTTPTypes
import MalibuCore
import MalibuTransport
import Testing

/// CR and LF can never split a header on the wire.
///
/// Three layers stand in the way: MalibuCore's `HTTPFields(validating:)` rejects CR, LF and NUL in a header the
/// caller names (the facade builds every request through it); swift-http-types turns CR and LF in an `HTTPField`
/// value into spaces; and each transport checks the request once more before anything is sent, which catches values
/// that reached an `HTTPRequest` without that legalisation (decoded from JSON, say).
@Suite("Header injection", .serialized)
struct HeaderInjectionTests {
  @Test func coreRejectsCRLFBeforeARequestExists() {
    #expect {
      try HTTPFields(validating: ["X-Board": "balsa\r\nX-Injected: yes"])
    } throws: { error in
      (error as? NetworkError)?.code == .invalidHeader
    }
  }

  @Test(arguments: Backend.allCases)
  func legalisedValueArrivesAsOneHeader(_ backend: Backend) async throws {
    var request = HTTPRequest(method: .get, url: try await Servers.httpbin("/headers"))
    request.headerFields[HTTPField.Name("X-Board")!] = "balsa\r\nX-Injected: yes"
    let (_, data, _) = try await backend.transport.data(for: request, body: nil, options: .init(), upTo: 1 << 20)
    let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: any Sendable])
    let headers = try #require(json["headers"] as? [String: String])
    #expect(headers["X-Injected"] == nil)
    #expect(headers["X-Board"]?.hasPrefix("balsa") == true)
  }

  @Test(arguments: Backend.allCases)
  func rawCRLFInADecodedRequestIsRejected(_ backend: Backend) async throws {
    let url = try await Servers.httpbin("/headers")
    let template = HTTPRequest(method: .get, url: url, headerFields: [HTTPField.Name("X-Board")!: "PLACEHOLDER"])
    let json = String(decoding: try JSONEncoder().encode(template), as: UTF8.self)
      .replacingOccurrences(of: "PLACEHOLDER", with: "balsa\\r\\nX-Injected: yes")
    guard let request = try? JSONDecoder().decode(HTTPRequest.self, from: Data(json.utf8)),
      request.headerFields[HTTPField.Name("X-Board")!]?.contains("\r") == true
    else {
      // swift-http-types refused the raw value while decoding: it cannot reach a transport at all.
      return
    }
    await expectTransportError(.invalidRequest) {
      try await backend.transport.send(request, body: nil, options: TransferOptions())
    }
    #expect(try await backend.exchange(url).status == 200)
  }
}
