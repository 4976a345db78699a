import Foundation
import HTTPTypes
import MalibuTransport
import Testing

@testable import MalibuCurl

/// Admission by capacity against nginx: once a host has answered over HTTP/2, one connection carries many transfers,
/// so a limit of one connection does not hold HTTP/2 fan-out to one request at a time; over HTTP/1.1 the same limit
/// makes the others wait in the transport.
@Suite("Admission by capacity", .serialized)
struct AdmissionScenarioTests {
  /// One connection in all.
  static let configuration = CurlTransport.Configuration(maximumConnections: 1, maximumConnectionsPerHost: 1)

  /// `count` GETs of `url` at once; how many succeeded with the small file.
  func fanOut(_ count: Int, to url: URL, on transport: CurlTransport, options: TransferOptions) async throws -> Int {
    try await withThrowingTaskGroup(of: Bool.self) { group in
      for _ in 0..<count {
        group.addTask {
          let (head, data, _) = try await transport.data(
            for: HTTPRequest(method: .get, url: url),
            body: nil,
            options: options,
            upTo: 1 << 20
          )
          return head.status.code == 200 && data == StaticContent.data(of: StaticContent.small)
        }
      }
      var correct = 0
      for try await ok in group where ok { correct += 1 }
      return correct
    }
  }

  @Test func http2FanOutIsNotHeldToOneTransferPerConnection() async throws {
    let material = try await LocalServers.shared.tlsMaterial()
    let url = try await Servers.nginxTLS("/identity/1k.bin")
    let transport = CurlTransport(configuration: Self.configuration)
    defer { transport.shutdown() }
    var options = TransferOptions()
    options.tls = TLSOptions(caFile: material.caFile)
    // The first response tells the transport that the host speaks HTTP/2: from then on the one connection takes 100.
    #expect(try await fanOut(1, to: url, on: transport, options: options) == 1)
    #expect(try await fanOut(20, to: url, on: transport, options: options) == 20)
    #expect(transport.transfersWaited == 0)
  }

  @Test func http1FanOutWaitsForTheOneConnectionAndAllArrive() async throws {
    let url = try await Servers.nginx("/identity/1k.bin")
    let transport = CurlTransport(configuration: Self.configuration)
    defer { transport.shutdown() }
    #expect(try await fanOut(20, to: url, on: transport, options: TransferOptions()) == 20)
    #expect(transport.transfersWaiting == 0)
  }
}
