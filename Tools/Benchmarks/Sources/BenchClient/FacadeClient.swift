import BenchSupport
import Foundation
import Malibu

/// An endpoint with an absolute URL. The cache is bypassed: nginx's `Last-Modified` would otherwise turn every
/// repeat into a revalidation (`304`, body from the facade's cache), which is not the exchange being compared.
struct BenchEndpoint: RequestConvertible {
  static let baseUrl: (any URLStringConvertible)? = nil
  let url: String

  var request: Request {
    .get(url, cachePolicy: .reloadIgnoringLocalCacheData)
  }
}

/// `facade-curl` and `facade-urlsession`: `Networking` + `validate()` + `toData()` over the same transport
/// configuration as the direct rows, so the difference between the two rows is the facade.
struct FacadeClient: Client {
  let networking: Networking<BenchEndpoint>
  let base: String
  let close: @Sendable () -> Void
  let taskExecutor: (any TaskExecutor)?

  init(transport: TransportClient, base: String) {
    networking = Networking(transport: .custom(transport.transport))
    networking.maximumResponseSize = 1 << 30
    self.base = base
    close = transport.close
    taskExecutor = transport.taskExecutor
  }

  func get(_ path: String) async throws -> Int {
    try await networking.request(BenchEndpoint(url: base + path)).validate().toData().value.count
  }

  func board(_ path: String) async throws -> Board {
    try await networking.request(BenchEndpoint(url: base + path)).validate().decode(using: Board.self).value
  }

  func shutdown() async {
    close()
  }
}
