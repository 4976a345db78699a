// swift-tools-version:6.2

import PackageDescription

/// The library modules, in layer order (see README's module table).
let package = Package(
  name: "Malibu",
  // The minimum Apple versions (Linux needs none). MalibuCurl is for Linux and macOS only; on iOS, tvOS, watchOS and
  // visionOS the facade sends with URLSession. Only Linux (glibc) is built and tested by CI (README, "Platform notes").
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  products: [
    .library(name: "MalibuPromises", targets: ["MalibuPromises"]),
    .library(name: "MalibuJSON", targets: ["MalibuJSON"]),
    .library(name: "MalibuCore", targets: ["MalibuCore"]),
    .library(name: "MalibuEncoding", targets: ["MalibuEncoding"]),
    .library(name: "MalibuValidation", targets: ["MalibuValidation"]),
    .library(name: "MalibuSerialization", targets: ["MalibuSerialization"]),
    .library(name: "MalibuGzip", targets: ["MalibuGzip"]),
    .library(name: "MalibuTransport", targets: ["MalibuTransport"]),
    .library(name: "MalibuCurl", targets: ["MalibuCurl"]),
    .library(name: "MalibuURLSession", targets: ["MalibuURLSession"]),
    .library(name: "MalibuAuth", targets: ["MalibuAuth"]),
    .library(name: "MalibuLogging", targets: ["MalibuLogging"]),
    .library(name: "MalibuMocking", targets: ["MalibuMocking"]),
    .library(name: "MalibuStorage", targets: ["MalibuStorage"]),
    .library(name: "Malibu", targets: ["Malibu"]),
    // Integrations, each with its own dependency (the core above keeps swift-http-types and swift-log only).
    .library(name: "MalibuOpenAPI", targets: ["MalibuOpenAPI"]),
    // surf: an HTTPie-like command line on Malibu (Tools/Surf).
    .executable(name: "surf", targets: ["SurfCLI"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
    .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    // MalibuOpenAPI only: SwiftPM fetches it for every consumer, but compiles it only for users of MalibuOpenAPI.
    .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
    // surf's command line only (Tools/Surf); no library target depends on it.
    .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
  ],
  targets: [
    // Layer 0
    .target(name: "MalibuPromises", path: "Modules/Promises"),
    // Codable JSON at several times Foundation's speed; no package dependencies, usable without the rest of Malibu.
    .target(name: "MalibuJSON", path: "Modules/JSON"),
    .systemLibrary(
      name: "CZlib",
      path: "Modules/CZlib",
      pkgConfig: "zlib",
      providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
    ),
    .systemLibrary(
      name: "CCurl",
      path: "Modules/CCurl",
      pkgConfig: "libcurl",
      providers: [.apt(["libcurl4-openssl-dev"]), .brew(["curl"])]
    ),
    // Layer 1
    .target(
      name: "MalibuCore",
      dependencies: ["MalibuJSON", .product(name: "HTTPTypes", package: "swift-http-types")],
      path: "Modules/Core"
    ),
    // Layer 2
    .target(name: "MalibuEncoding", dependencies: ["MalibuCore", "MalibuJSON"], path: "Modules/Encoding"),
    .target(name: "MalibuValidation", dependencies: ["MalibuCore"], path: "Modules/Validation"),
    .target(name: "MalibuSerialization", dependencies: ["MalibuCore", "MalibuJSON"], path: "Modules/Serialization"),
    .target(name: "MalibuGzip", dependencies: ["CZlib"], path: "Modules/Gzip"),
    // Layer 3
    .target(
      name: "MalibuTransport",
      dependencies: ["MalibuCore", "MalibuEncoding", "MalibuGzip"],
      path: "Modules/Transport"
    ),
    // Layer 4
    .target(name: "MalibuCurl", dependencies: ["MalibuTransport", "CCurl"], path: "Modules/Curl"),
    .target(name: "MalibuURLSession", dependencies: ["MalibuTransport"], path: "Modules/URLSession"),
    .target(name: "MalibuAuth", dependencies: ["MalibuCore", "MalibuTransport"], path: "Modules/Auth"),
    .target(
      name: "MalibuLogging",
      dependencies: ["MalibuCore", "MalibuTransport", .product(name: "Logging", package: "swift-log")],
      path: "Modules/Logging"
    ),
    .target(name: "MalibuMocking", dependencies: ["MalibuCore", "MalibuTransport"], path: "Modules/Mocking"),
    .target(name: "MalibuStorage", dependencies: ["MalibuCore", "MalibuTransport"], path: "Modules/Storage"),
    // Layer 5: the facade
    .target(
      name: "Malibu",
      dependencies: [
        "MalibuPromises", "MalibuJSON", "MalibuCore", "MalibuEncoding", "MalibuValidation", "MalibuSerialization",
        "MalibuGzip",
        "MalibuTransport", "MalibuURLSession", "MalibuAuth", "MalibuLogging", "MalibuMocking", "MalibuStorage",
        // libcurl ships with Linux distributions and macOS, not with the iOS, tvOS, watchOS or visionOS SDKs: there
        // the facade has no curl transport and sends with URLSession (README, "Platform notes").
        .target(name: "MalibuCurl", condition: .when(platforms: [.linux, .macOS])),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Modules/Malibu"
    ),

    // Layer 6: integrations, each a product of its own; no target above imports them.
    .target(
      name: "MalibuOpenAPI",
      dependencies: [
        "MalibuCore", "MalibuTransport",
        // The default transport, CurlTransport.shared, where libcurl exists (as for the facade).
        .target(name: "MalibuCurl", condition: .when(platforms: [.linux, .macOS])),
        .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
      ],
      path: "Modules/OpenAPI"
    ),

    // `make demo`: a tour of the library against local httpbin (not a product).
    .executableTarget(name: "MalibuDemo", dependencies: ["Malibu"], path: "Tools/Demo"),

    // surf (Tools/Surf): SurfCore holds its logic on Malibu's public API, so that tests can import it; SurfCLI is the
    // thin swift-argument-parser front, built as the `surf` executable.
    .target(name: "SurfCore", dependencies: ["Malibu"], path: "Tools/Surf/Core"),
    .executableTarget(
      name: "SurfCLI",
      dependencies: ["SurfCore", .product(name: "ArgumentParser", package: "swift-argument-parser")],
      path: "Tools/Surf/CLI"
    ),
    .testTarget(name: "SurfTests", dependencies: ["SurfCore"], path: "Tests/SurfTests"),

    // The scripted HTTP/1.1 test server both transports' unit tests talk to, and helpers other unit tests share (not a
    // product).
    .target(
      name: "MalibuTestSupport",
      dependencies: ["MalibuCore", "MalibuJSON", "MalibuGzip", .product(name: "Logging", package: "swift-log")],
      path: "Tests/Support"
    ),

    // The client swift-openapi-generator wrote from openapi.yaml in its folder (README.md there says how), committed
    // so that no build runs the generator. Not a product: the OpenAPI tests and the README examples use it.
    .target(
      name: "MalibuOpenAPIExampleClient",
      dependencies: [
        .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
      ],
      path: "Tests/OpenAPIExampleClient",
      exclude: ["openapi.yaml", "openapi-generator-config.yaml", "README.md"]
    ),

    // Unit tests, one target per module.
    .testTarget(name: "MalibuPromisesTests", dependencies: ["MalibuPromises"], path: "Tests/PromisesTests"),
    .testTarget(name: "MalibuJSONTests", dependencies: ["MalibuJSON"], path: "Tests/JSONTests"),
    .testTarget(name: "MalibuCoreTests", dependencies: ["MalibuCore", "MalibuTestSupport"], path: "Tests/CoreTests"),
    .testTarget(name: "MalibuEncodingTests", dependencies: ["MalibuEncoding"], path: "Tests/EncodingTests"),
    .testTarget(name: "MalibuValidationTests", dependencies: ["MalibuValidation"], path: "Tests/ValidationTests"),
    .testTarget(
      name: "MalibuSerializationTests",
      dependencies: ["MalibuSerialization", "MalibuTestSupport"],
      path: "Tests/SerializationTests"
    ),
    .testTarget(name: "MalibuGzipTests", dependencies: ["MalibuGzip"], path: "Tests/GzipTests"),
    .testTarget(
      name: "MalibuTransportTests",
      dependencies: ["MalibuTransport", "MalibuGzip", "MalibuTestSupport"],
      path: "Tests/TransportTests"
    ),
    .testTarget(
      name: "MalibuCurlTests",
      dependencies: ["MalibuCurl", "MalibuGzip", "MalibuTestSupport"],
      path: "Tests/CurlTests"
    ),
    .testTarget(
      name: "MalibuURLSessionTests",
      dependencies: ["MalibuURLSession", "MalibuGzip", "MalibuTestSupport"],
      path: "Tests/URLSessionTests"
    ),

    .testTarget(name: "MalibuAuthTests", dependencies: ["MalibuAuth", "MalibuTestSupport"], path: "Tests/AuthTests"),
    .testTarget(name: "MalibuStorageTests", dependencies: ["MalibuStorage"], path: "Tests/StorageTests"),
    .testTarget(
      name: "MalibuLoggingTests",
      dependencies: ["MalibuLogging", "MalibuTestSupport", .product(name: "Logging", package: "swift-log")],
      path: "Tests/LoggingTests"
    ),
    .testTarget(
      name: "MalibuMockingTests",
      dependencies: ["MalibuMocking"],
      path: "Tests/MockingTests",
      resources: [.copy("Fixtures")]
    ),
    .testTarget(
      name: "MalibuOpenAPITests",
      dependencies: [
        "MalibuOpenAPI", "MalibuOpenAPIExampleClient", "MalibuMocking", "MalibuCore", "MalibuTransport",
        .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
      ],
      path: "Tests/OpenAPITests"
    ),

    // Types named as Malibu's (a server framework's `Request`, `Response`, `Middleware`), for NameClashTests.
    .target(name: "MalibuNameClashStandIn", path: "Tests/NameClashStandIn"),
    .testTarget(
      name: "MalibuTests",
      dependencies: ["Malibu", "MalibuTestSupport", "MalibuNameClashStandIn"],
      path: "Tests/MalibuTests",
      resources: [.copy("Fixtures")]
    ),

    // README.md's Swift blocks, compiled (Tools/scripts/readme-snippets writes README+Snippets.swift) and partly run.
    .testTarget(
      name: "MalibuReadmeTests",
      dependencies: [
        "Malibu",
        // "On a server", "OpenAPI": the transport and a generated client.
        "MalibuOpenAPI", "MalibuOpenAPIExampleClient",
        .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
      ],
      path: "Tests/ReadmeTests",
      resources: [.copy("Fixtures")]
    ),

    // Integration suite: every transport against local httpbin and nginx (started by the suite itself).
    .testTarget(
      name: "MalibuIntegrationTests",
      dependencies: [
        "MalibuCurl", "MalibuURLSession", "MalibuTransport", "MalibuEncoding", "MalibuGzip", "MalibuCore",
        "MalibuTestSupport", "Malibu",
        // Integration/OpenAPI: the generated client through MalibuOpenAPI.
        "MalibuOpenAPI", "MalibuOpenAPIExampleClient",
        .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
        // Integration/Surf runs the built `surf` binary: depending on it makes `swift build --build-tests` build it.
        "SurfCLI",
      ],
      path: "Integration"
    ),
  ]
)

// MARK: Server integrations (issue: Malibu in the Swift server ecosystem)
// Each is a product of its own with its one ecosystem dependency; no core target imports them, so the core products
// keep swift-http-types and swift-log only.
package.dependencies += [
  .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
  .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
  .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
]
package.products += [
  .library(name: "MalibuTracing", targets: ["MalibuTracing"]),
  .library(name: "MalibuMetrics", targets: ["MalibuMetrics"]),
  .library(name: "MalibuLifecycle", targets: ["MalibuLifecycle"]),
]
package.targets += [
  .target(
    name: "MalibuTracing",
    dependencies: [
      "MalibuCore", "MalibuTransport", "MalibuLogging", .product(name: "Tracing", package: "swift-distributed-tracing"),
    ],
    path: "Modules/Tracing"
  ),
  .target(
    name: "MalibuMetrics",
    dependencies: ["MalibuCore", "MalibuTransport", .product(name: "CoreMetrics", package: "swift-metrics")],
    path: "Modules/Metrics"
  ),
  .target(
    name: "MalibuLifecycle",
    dependencies: [
      "MalibuTransport", .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
    ],
    path: "Modules/Lifecycle"
  ),
  // A server process for the lifecycle tests to launch and send SIGTERM to (not a product).
  .executableTarget(
    name: "MalibuLifecycleFixture",
    dependencies: [
      "MalibuLifecycle", "Malibu", .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      .product(name: "UnixSignals", package: "swift-service-lifecycle"),
    ],
    path: "Tests/LifecycleFixture"
  ),
  .testTarget(
    name: "MalibuTracingTests",
    dependencies: [
      "MalibuTracing", "MalibuCurl", "MalibuStorage", "MalibuTestSupport",
      .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
    ],
    path: "Tests/TracingTests"
  ),
  .testTarget(
    name: "MalibuMetricsTests",
    dependencies: [
      "MalibuMetrics", "MalibuCurl", "MalibuTestSupport",
      .product(name: "MetricsTestKit", package: "swift-metrics"),
    ],
    path: "Tests/MetricsTests"
  ),
  .testTarget(
    name: "MalibuLifecycleTests",
    dependencies: [
      "MalibuLifecycle", "Malibu", "MalibuTestSupport",
      .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
    ],
    path: "Tests/LifecycleTests"
  ),
]

// README.md's "On a server" examples import the integrations.
for target in package.targets where target.name == "MalibuReadmeTests" {
  target.dependencies += [
    "MalibuTracing", "MalibuMetrics", "MalibuLifecycle",
    .product(name: "Tracing", package: "swift-distributed-tracing"),
    .product(name: "Metrics", package: "swift-metrics"),
    .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
    .product(name: "UnixSignals", package: "swift-service-lifecycle"),
  ]
}

// Settings once, for every Swift target: the upcoming features the whole code base is written for.
// Strict flags (-warnings-as-errors, -require-explicit-sendable) come from the Makefile.
for target in package.targets where target.type != .system {
  var settings = target.swiftSettings ?? []
  settings.append(.enableUpcomingFeature("ExistentialAny"))
  settings.append(.enableUpcomingFeature("MemberImportVisibility"))
  settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
  target.swiftSettings = settings
}

// `make docs` only (MALIBU_DOCS=1): the DocC plugin, so that users of the library never fetch it.
if Context.environment["MALIBU_DOCS"] != nil {
  package.dependencies.append(.package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"))
}

// MARK: Every module a target imports, declared
// A target's dependencies above, plus the modules its files import directly that those lists reach only through
// another target (HTTPTypes above all). `make build` passes `--explicit-target-dependency-import-check error`.
let httpTypes = Target.Dependency.product(name: "HTTPTypes", package: "swift-http-types")
let directImports: [String: [Target.Dependency]] = [
  // Libraries
  "MalibuValidation": [httpTypes],
  "MalibuSerialization": [httpTypes],
  "MalibuTransport": [httpTypes],
  "MalibuCurl": [httpTypes, "MalibuCore"],
  "MalibuURLSession": [httpTypes, "MalibuCore"],
  "MalibuAuth": [httpTypes],
  "MalibuLogging": [httpTypes],
  "MalibuMocking": [httpTypes],
  "MalibuStorage": [httpTypes],
  "MalibuOpenAPI": [httpTypes],
  "MalibuTracing": [httpTypes, .product(name: "Instrumentation", package: "swift-distributed-tracing")],
  "MalibuMetrics": [httpTypes],
  // Tools
  "SurfCore": [httpTypes, "MalibuCore", "MalibuEncoding", "MalibuStorage"],
  "MalibuLifecycleFixture": [.product(name: "Logging", package: "swift-log")],
  // Tests
  "SurfTests": [httpTypes, "Malibu", "MalibuCore", "MalibuStorage"],
  "MalibuCoreTests": [httpTypes, "MalibuJSON"],
  "MalibuEncodingTests": ["MalibuCore"],
  "MalibuValidationTests": [httpTypes, "MalibuCore"],
  "MalibuSerializationTests": [httpTypes, "MalibuCore", "MalibuJSON"],
  "MalibuTransportTests": [httpTypes, "MalibuCore", "MalibuEncoding"],
  "MalibuCurlTests": [httpTypes, "MalibuCore", "MalibuTransport", "CCurl"],
  "MalibuURLSessionTests": [httpTypes, "MalibuCore", "MalibuTransport"],
  "MalibuAuthTests": [httpTypes, "MalibuCore", "MalibuTransport"],
  "MalibuStorageTests": [httpTypes, "MalibuCore", "MalibuTransport"],
  "MalibuLoggingTests": [httpTypes, "MalibuCore", "MalibuTransport"],
  "MalibuMockingTests": [httpTypes, "MalibuCore", "MalibuTransport"],
  "MalibuOpenAPITests": [httpTypes],
  "MalibuTests": [httpTypes, "MalibuCore"],
  "MalibuReadmeTests": [
    httpTypes, "MalibuCore", "MalibuEncoding", "MalibuValidation", "MalibuSerialization", "MalibuTransport",
    "MalibuURLSession", .target(name: "MalibuCurl", condition: .when(platforms: [.linux, .macOS])),
    .product(name: "Logging", package: "swift-log"),
  ],
  "MalibuIntegrationTests": [httpTypes, "MalibuAuth", "MalibuStorage"],
  "MalibuTracingTests": [
    httpTypes, "MalibuCore", "MalibuTransport", .product(name: "Tracing", package: "swift-distributed-tracing"),
  ],
  "MalibuMetricsTests": [httpTypes, "MalibuTransport"],
  "MalibuLifecycleTests": [httpTypes, "MalibuCore"],
]
precondition(
  Set(directImports.keys).isSubset(of: package.targets.map(\.name)),
  "directImports names a target that does not exist"
)
for target in package.targets {
  target.dependencies += directImports[target.name] ?? []
}
