// swift-tools-version:6.2

import Foundation
import PackageDescription

// The benchmark harness: a package of its own, so that library users never fetch its dependencies
// (async-http-client for the peer comparison, ordo-one/benchmark for the micro-benchmarks).
// Run it with `make bench` from the repository root; see Tools/Benchmarks/README.md.

// SwiftPM names a path dependency after its folder, so the root package's identity is the name of the folder the
// repository was cloned into ("malibu", "Malibu-main", ...), lowercased: computed here rather than spelled.
let rootPackage = URL(fileURLWithPath: Context.packageDirectory)
  .deletingLastPathComponent()
  .deletingLastPathComponent()
  .lastPathComponent
  .lowercased()

func malibu(_ product: String) -> Target.Dependency {
  .product(name: product, package: rootPackage)
}

let package = Package(
  name: "MalibuBenchmarks",
  platforms: [.macOS(.v15)],
  dependencies: [
    .package(path: "../.."),
    .package(url: "https://github.com/swift-server/async-http-client.git", exact: "1.37.0"),
    .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
    // Already in the graph through async-http-client; named because the AHC contender uses their types
    // (ByteBuffer, HTTP status and headers, the decompression limit).
    .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
    // Also already in the graph through async-http-client: the https api-mix rows give it the run's CA
    // (`TLSConfiguration`).
    .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
    // The events row's peer: swift-openapi-runtime's server-sent events decoder (`asDecodedServerSentEvents()`).
    .package(url: "https://github.com/apple/swift-openapi-runtime.git", exact: "1.13.4"),
  ],
  targets: [
    // What every client shares: the command line, the workloads and their checks, the JSON report.
    .target(name: "BenchSupport", path: "Sources/BenchSupport"),
    // One process per measurement: `bench-client <contender> <workload> [options]` prints one JSON line.
    .executableTarget(
      name: "bench-client",
      dependencies: [
        "BenchSupport", malibu("Malibu"), malibu("MalibuCurl"), malibu("MalibuURLSession"), malibu("MalibuTransport"),
      ],
      path: "Sources/BenchClient"
    ),
    // The Codable JSON rows, no network: Foundation's coders, MalibuJSON, and Malibu's JSONParser DOM through
    // `toJsonArray()`, over the api-mix files (the simdjson reference is C/bench_simdjson.cpp).
    .executableTarget(
      name: "bench-json",
      dependencies: ["BenchSupport", malibu("Malibu"), malibu("MalibuJSON")],
      path: "Sources/BenchJSON"
    ),
    // The events row, no network: one recorded `text/event-stream` parsed by Malibu's `ServerSentEventParser` (and
    // `ServerSentEvents`) and by swift-openapi-runtime's decoder, in the same chunks.
    .executableTarget(
      name: "bench-events",
      dependencies: [
        "BenchSupport", malibu("MalibuTransport"), .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
      ],
      path: "Sources/BenchEvents"
    ),
    // async-http-client in a binary of its own, so that neither side's peak RSS carries the other's code.
    .executableTarget(
      name: "bench-client-ahc",
      dependencies: [
        "BenchSupport",
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
        .product(name: "NIOFoundationCompat", package: "swift-nio"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
      ],
      path: "Sources/BenchClientAHC"
    ),
    // The floor of an async Swift client on libcurl (a reference row): the library's own libcurl shim
    // (Modules/CCurl/shim.h, which is no product of the root package) under a module map of its own, so that the
    // binary carries none of Malibu's Swift code.
    .systemLibrary(name: "CCurlFloor", path: "Sources/CCurlFloor"),
    .executableTarget(
      name: "bench-client-floor",
      dependencies: ["BenchSupport", "CCurlFloor"],
      path: "Sources/BenchClientFloor"
    ),
    // Micro-benchmarks run by `swift package benchmark` (ordo-one/benchmark): encoders, promises, facade overhead.
    .executableTarget(
      name: "MalibuBenchmarks",
      dependencies: [
        "BenchSupport", malibu("Malibu"), malibu("MalibuEncoding"), malibu("MalibuPromises"), malibu("MalibuMocking"),
        .product(name: "Benchmark", package: "benchmark"),
      ],
      path: "Benchmarks/MalibuBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
  ]
)

for target in package.targets where target.type != .system {
  var settings = target.swiftSettings ?? []
  settings.append(.enableUpcomingFeature("ExistentialAny"))
  settings.append(.enableUpcomingFeature("MemberImportVisibility"))
  settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
  target.swiftSettings = settings
}
