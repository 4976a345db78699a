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

/// An `api-mix` request through the facade: a GET with the plan's header values, or a POST of its `Order` encoded
/// as JSON by the facade.
struct ApiEndpoint: RequestConvertible {
  static let baseUrl: (any URLStringConvertible)? = nil
  let url: String
  let call: ApiCall

  var request: Request {
    let headers = ["Accept": "application/json", "Accept-Language": call.language, "X-Request-Id": call.requestID]
    if let order = call.order {
      return .post(url, body: order, headers: headers)
    }
    return .get(url, headers: headers, cachePolicy: .reloadIgnoringLocalCacheData)
  }
}

/// `facade-curl` and `facade-urlsession`: `Networking` + `validate()` + `toData()` over the same transport
/// configuration as the direct rows, so the difference between the two rows is the facade.
struct FacadeClient: Client {
  let networking: Networking<BenchEndpoint>
  let base: String
  let close: @Sendable () -> Void
  let taskExecutor: (any TaskExecutor)?

  let api: Networking<ApiEndpoint>
  /// `api-mix`: `false` for `facade-curl-data`, which stops at `toData()` (the transfer through the facade, no decoding).
  var decodes = true
  /// `api-mix`: `true` for `facade-curl-foundation`, which hands Foundation's `JSONDecoder` to `decode(using:decoder:)`
  /// where `facade-curl` takes the facade's default decoder.
  var decodesWithFoundation = false

  init(transport: TransportClient, base: String) {
    networking = Networking(transport: .custom(transport.transport))
    networking.maximumResponseSize = 1 << 30
    api = Networking(transport: .custom(transport.transport))
    api.transferOptions = transport.options
    // `BENCH_NETWORKING_HEADERS=1`: two header fields of the networking's own, as an API client with a key sets them.
    if ProcessInfo.processInfo.environment["BENCH_NETWORKING_HEADERS"] == "1" {
      api.headers = ["Authorization": "Bearer eyJhbGciOiJIUzI1NiJ9.c2Vzc2lvbg.abc123", "X-Api-Key": "k-4711-abcdef"]
    }
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

  /// `api-mix` through the facade: `validate()`, then `decode` into the Codable types (`[Item]`, or the `Receipt` of
  /// a POST), or `toData()` and the byte count when it does not decode.
  func api(_ call: ApiCall) async throws -> ApiAnswer {
    let promise = api.request(ApiEndpoint(url: base + call.path, call: call)).validate()
    if !decodes {
      return .transferred(try await promise.toData().value.count)
    }
    if decodesWithFoundation {
      if call.isPost {
        _ = try await promise.decode(using: Receipt.self, decoder: JSONDecoder()).value
        return .decoded(1)
      }
      return .decoded(try await promise.decode(using: [Item].self, decoder: JSONDecoder()).value.count)
    }
    if call.isPost {
      _ = try await promise.decode(using: Receipt.self).value
      return .decoded(1)
    }
    return .decoded(try await promise.decode(using: [Item].self).value.count)
  }

  func shutdown() async {
    close()
  }
}
