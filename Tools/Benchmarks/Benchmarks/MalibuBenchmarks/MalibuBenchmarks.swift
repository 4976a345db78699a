// Micro-benchmarks for ordo-one/benchmark (`swift package --package-path Tools/Benchmarks benchmark`, run by
// `make bench`): the parameter encoders, promise chains and the facade's own cost per request over MockTransport.
// Each iteration is one operation, so wall clock is per operation and "Malloc (total)" is allocations per
// operation. Limits are modest so the whole set runs in about a minute.

import BenchSupport
import Benchmark
import Foundation
import Malibu

let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, .throughput, .mallocCountTotal],
    warmupIterations: 10,
    scalingFactor: .one,
    maxDuration: .seconds(2),
    maxIterations: 20_000
  )
  encoderBenchmarks()
  promiseBenchmarks()
  facadeBenchmarks()
}

// MARK: - Encoders

/// A typical API payload: scalars, an array and a nested dictionary.
let parameters: Parameters = [
  "name": "Malibu board",
  "count": 42,
  "price": 1_299.5,
  "active": true,
  "tags": ["surf", "longboard", "blue & white"],
  "owner": ["id": 7, "email": "someone@example.com", "city": "Malibu, CA"] as Parameters,
]

func encoderBenchmarks() {
  let form = FormURLEncoder()
  let json = JSONParameterEncoder()
  let multipart = MultipartFormEncoder()
  var multipartParameters = parameters
  multipartParameters["photo"] = MultipartFile(
    data: Data(repeating: 0x5A, count: 1_024),
    fileName: "photo.jpg",
    mimeType: "image/jpeg"
  )
  let withFile = multipartParameters

  Benchmark("Encode form (URL-encoded)") { benchmark in
    for _ in benchmark.scaledIterations {
      blackHole(try? form.encode(parameters: parameters))
    }
  }
  Benchmark("Encode JSON") { benchmark in
    for _ in benchmark.scaledIterations {
      blackHole(try? json.encode(parameters: parameters))
    }
  }
  Benchmark("Encode multipart (with a 1 KiB file)") { benchmark in
    for _ in benchmark.scaledIterations {
      blackHole(try? multipart.encode(parameters: withFile))
    }
  }
}

// MARK: - Promises

func promiseBenchmarks() {
  Benchmark("Promise then-recover chain of 10") { benchmark async throws in
    for _ in benchmark.scaledIterations {
      let root = Promise<Int>()
      var chain = root
      for step in 0..<10 {
        chain = step.isMultiple(of: 2) ? chain.then { $0 + 1 } : chain.recover { _ in 0 }
      }
      root.resolve(0)
      blackHole(try await chain.value)
    }
  }
  Benchmark("Promise when of 100") { benchmark async throws in
    for _ in benchmark.scaledIterations {
      let promises = (0..<100).map { _ in Promise<Int>() }
      let all = when(promises)
      for (index, promise) in promises.enumerated() {
        promise.resolve(index)
      }
      blackHole(try await all.value.count)
    }
  }
}

// MARK: - Facade overhead

enum BoardEndpoint: RequestConvertible {
  case board

  static let baseUrl: (any URLStringConvertible)? = "http://bench.invalid"

  var request: Request {
    .get("/boards/1", cachePolicy: .reloadIgnoringLocalCacheData)
  }
}

func facadeBenchmarks() {
  let mock = MockTransport()
  mock.stub(
    .get,
    "/boards/1",
    reply: .init(headerFields: [.contentType: "application/json"], body: Board.sampleJSON)
  )
  let networking = Networking<BoardEndpoint>(transport: .custom(mock))
  let head = HTTPRequest(method: .get, scheme: "http", authority: "bench.invalid", path: "/boards/1")

  // The reference: the same exchange on MockTransport without the facade (and the same decoding).
  Benchmark("MockTransport alone: data + decode 1 KiB JSON") { benchmark async throws in
    for _ in benchmark.scaledIterations {
      let (_, data, _) = try await mock.data(for: head, body: nil, options: TransferOptions(), upTo: 1 << 20)
      blackHole(try JSONDecoder().decode(Board.self, from: data))
    }
    mock.removeRecordedRequests()
  }
  // The facade's cost per request is this row minus the one above; the target is < 10 µs.
  Benchmark("Facade: request + validate + decode 1 KiB JSON") { benchmark async throws in
    for _ in benchmark.scaledIterations {
      blackHole(try await networking.request(.board).validate().decode(using: Board.self).value)
    }
    mock.removeRecordedRequests()
  }
}
