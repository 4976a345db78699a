// swift-tools-version:6.2

import PackageDescription

// Dependencies named by many targets.
let httpTypes = Target.Dependency.product(name: "HTTPTypes", package: "swift-http-types")
let swiftLog = Target.Dependency.product(name: "Logging", package: "swift-log")
// libcurl ships with Linux distributions and macOS, not with the iOS, tvOS, watchOS or visionOS SDKs: there the facade
// (and MalibuOpenAPI) have no curl transport and send with URLSession (README, "Platform notes").
let curlWhereItExists = Target.Dependency.target(name: "MalibuCurl", condition: .when(platforms: [.linux, .macOS]))

/// Every target in layer order (see README's module table). Each names every module its files import.
let package = Package(
  name: "Malibu",
  // The minimum Apple versions (Linux needs none). Only Linux (glibc) is built and tested by CI (README, "Platform
  // notes").
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
    .library(name: "MalibuTypedRequests", targets: ["MalibuTypedRequests"]),
    .library(name: "Malibu", targets: ["Malibu"]),
    // Integrations: each is built with its ecosystem dependency only when its trait is enabled (below).
    .library(name: "MalibuOpenAPI", targets: ["MalibuOpenAPI"]),
    .library(name: "MalibuTracing", targets: ["MalibuTracing"]),
    .library(name: "MalibuMetrics", targets: ["MalibuMetrics"]),
    .library(name: "MalibuLifecycle", targets: ["MalibuLifecycle"]),
    // surf (Tools/Surf) is not a product: it is built from a clone (`make install`), so that its command-line parser
    // is never resolved by users of the library.
  ],
  // A consumer resolves an integration's dependency only when it enables the trait:
  // `.package(url: "https://github.com/malibu-swift/malibu.git", from: "…", traits: ["Tracing"])`. With the trait off,
  // the integration's module declares its types unavailable, with that line as the message.
  traits: [
    .trait(name: "OpenAPI", description: "MalibuOpenAPI: a swift-openapi-runtime ClientTransport on Malibu."),
    .trait(name: "Tracing", description: "MalibuTracing: spans through swift-distributed-tracing."),
    .trait(name: "Metrics", description: "MalibuMetrics: request metrics through swift-metrics."),
    .trait(name: "Lifecycle", description: "MalibuLifecycle: graceful shutdown through swift-service-lifecycle."),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
    .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
    // The integrations' (behind their traits), and the tests' of the integrations.
    .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
    .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
    .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    // surf's command line only.
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
    .target(name: "MalibuCore", dependencies: ["MalibuJSON", httpTypes], path: "Modules/Core"),

    // Layer 2
    .target(name: "MalibuEncoding", dependencies: ["MalibuCore", "MalibuJSON"], path: "Modules/Encoding"),
    .target(name: "MalibuValidation", dependencies: ["MalibuCore", httpTypes], path: "Modules/Validation"),
    .target(
      name: "MalibuSerialization",
      dependencies: ["MalibuCore", "MalibuJSON", httpTypes],
      path: "Modules/Serialization"
    ),
    .target(name: "MalibuGzip", dependencies: ["CZlib"], path: "Modules/Gzip"),

    // Layer 3
    .target(
      name: "MalibuTransport",
      dependencies: ["MalibuCore", "MalibuEncoding", "MalibuGzip", httpTypes],
      path: "Modules/Transport"
    ),

    // Layer 4
    .target(
      name: "MalibuCurl",
      dependencies: ["MalibuTransport", "MalibuCore", "CCurl", httpTypes],
      path: "Modules/Curl"
    ),
    .target(
      name: "MalibuURLSession",
      dependencies: ["MalibuTransport", "MalibuCore", httpTypes],
      path: "Modules/URLSession"
    ),
    .target(name: "MalibuAuth", dependencies: ["MalibuCore", "MalibuTransport", httpTypes], path: "Modules/Auth"),
    .target(
      name: "MalibuLogging",
      dependencies: ["MalibuCore", "MalibuTransport", swiftLog, httpTypes],
      path: "Modules/Logging"
    ),
    .target(
      name: "MalibuMocking",
      dependencies: ["MalibuCore", "MalibuTransport", httpTypes],
      path: "Modules/Mocking"
    ),
    .target(
      name: "MalibuStorage",
      dependencies: ["MalibuCore", "MalibuTransport", httpTypes],
      path: "Modules/Storage"
    ),
    // Typed requests and GraphQL, usable with a bare transport.
    .target(
      name: "MalibuTypedRequests",
      dependencies: [
        "MalibuCore", "MalibuJSON", "MalibuSerialization", "MalibuValidation", "MalibuTransport", httpTypes,
      ],
      path: "Modules/TypedRequests"
    ),

    // Layer 5: the facade
    .target(
      name: "Malibu",
      dependencies: [
        "MalibuPromises", "MalibuJSON", "MalibuCore", "MalibuEncoding", "MalibuValidation", "MalibuSerialization",
        "MalibuGzip", "MalibuTransport", "MalibuURLSession", "MalibuAuth", "MalibuLogging", "MalibuMocking",
        "MalibuStorage", "MalibuTypedRequests", curlWhereItExists, httpTypes, swiftLog,
      ],
      path: "Modules/Malibu"
    ),

    // Layer 6: integrations, each a product of its own; no target above imports them.
    .target(
      name: "MalibuOpenAPI",
      dependencies: [
        "MalibuCore", "MalibuTransport", curlWhereItExists, httpTypes,
        .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: .when(traits: ["OpenAPI"])),
      ],
      path: "Modules/OpenAPI"
    ),
    .target(
      name: "MalibuTracing",
      dependencies: [
        "MalibuCore", "MalibuTransport", "MalibuLogging", httpTypes,
        .product(name: "Tracing", package: "swift-distributed-tracing", condition: .when(traits: ["Tracing"])),
        .product(name: "Instrumentation", package: "swift-distributed-tracing", condition: .when(traits: ["Tracing"])),
      ],
      path: "Modules/Tracing"
    ),
    .target(
      name: "MalibuMetrics",
      dependencies: [
        "MalibuCore", "MalibuTransport", httpTypes,
        .product(name: "CoreMetrics", package: "swift-metrics", condition: .when(traits: ["Metrics"])),
      ],
      path: "Modules/Metrics"
    ),
    .target(
      name: "MalibuLifecycle",
      dependencies: [
        "MalibuTransport",
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Lifecycle"])),
      ],
      path: "Modules/Lifecycle"
    ),

    // Tools (not products). `make demo`: a tour of the library against local httpbin.
    .executableTarget(name: "MalibuDemo", dependencies: ["Malibu"], path: "Tools/Demo"),
    // surf: SurfCore holds its logic on Malibu's public API, so that tests can import it; `surf` is the thin
    // swift-argument-parser front (`swift build --product surf`).
    .target(
      name: "SurfCore",
      dependencies: ["Malibu", "MalibuCore", "MalibuEncoding", "MalibuStorage", httpTypes],
      path: "Tools/Surf/Core"
    ),
    .executableTarget(
      name: "surf",
      dependencies: ["SurfCore", .product(name: "ArgumentParser", package: "swift-argument-parser")],
      path: "Tools/Surf/CLI"
    ),

    // Test support (not products): the scripted HTTP/1.1 server both transports' unit tests talk to, and helpers
    // other tests share.
    .target(
      name: "MalibuTestSupport",
      dependencies: ["MalibuCore", "MalibuJSON", "MalibuGzip", swiftLog],
      path: "Tests/Support"
    ),
    // Types named as Malibu's (a server framework's `Request`, `Response`, `Middleware`), for NameClashTests.
    .target(name: "MalibuNameClashStandIn", path: "Tests/NameClashStandIn"),
    // The client swift-openapi-generator wrote from openapi.yaml in its folder (README.md there says how), committed
    // so that no build runs the generator. The OpenAPI tests and the README examples use it.
    .target(
      name: "MalibuOpenAPIExampleClient",
      dependencies: [.product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"), httpTypes],
      path: "Tests/OpenAPIExampleClient",
      exclude: ["openapi.yaml", "openapi-generator-config.yaml", "README.md"]
    ),
    // A server process for the lifecycle tests to launch and send SIGTERM to.
    .executableTarget(
      name: "MalibuLifecycleFixture",
      dependencies: [
        "MalibuLifecycle", "Malibu", swiftLog,
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "UnixSignals", package: "swift-service-lifecycle"),
      ],
      path: "Tests/LifecycleFixture"
    ),

    // Unit tests, one target per module, in layer order.
    .testTarget(name: "MalibuPromisesTests", dependencies: ["MalibuPromises"], path: "Tests/PromisesTests"),
    .testTarget(name: "MalibuJSONTests", dependencies: ["MalibuJSON"], path: "Tests/JSONTests"),
    .testTarget(
      name: "MalibuCoreTests",
      dependencies: ["MalibuCore", "MalibuJSON", "MalibuTestSupport", httpTypes],
      path: "Tests/CoreTests"
    ),
    .testTarget(
      name: "MalibuEncodingTests",
      dependencies: ["MalibuEncoding", "MalibuCore"],
      path: "Tests/EncodingTests"
    ),
    .testTarget(
      name: "MalibuValidationTests",
      dependencies: ["MalibuValidation", "MalibuCore", httpTypes],
      path: "Tests/ValidationTests"
    ),
    .testTarget(
      name: "MalibuSerializationTests",
      dependencies: ["MalibuSerialization", "MalibuCore", "MalibuJSON", "MalibuTestSupport", httpTypes],
      path: "Tests/SerializationTests"
    ),
    .testTarget(name: "MalibuGzipTests", dependencies: ["MalibuGzip"], path: "Tests/GzipTests"),
    .testTarget(
      name: "MalibuTransportTests",
      dependencies: ["MalibuTransport", "MalibuCore", "MalibuEncoding", "MalibuGzip", "MalibuTestSupport", httpTypes],
      path: "Tests/TransportTests"
    ),
    .testTarget(
      name: "MalibuCurlTests",
      dependencies: [
        "MalibuCurl", "MalibuTransport", "MalibuCore", "MalibuGzip", "CCurl", "MalibuTestSupport", httpTypes,
      ],
      path: "Tests/CurlTests"
    ),
    .testTarget(
      name: "MalibuURLSessionTests",
      dependencies: [
        "MalibuURLSession", "MalibuTransport", "MalibuCore", "MalibuGzip", "MalibuTestSupport", httpTypes,
      ],
      path: "Tests/URLSessionTests"
    ),
    .testTarget(
      name: "MalibuAuthTests",
      dependencies: ["MalibuAuth", "MalibuTransport", "MalibuCore", "MalibuTestSupport", httpTypes],
      path: "Tests/AuthTests"
    ),
    .testTarget(
      name: "MalibuLoggingTests",
      dependencies: ["MalibuLogging", "MalibuTransport", "MalibuCore", "MalibuTestSupport", swiftLog, httpTypes],
      path: "Tests/LoggingTests"
    ),
    .testTarget(
      name: "MalibuMockingTests",
      dependencies: ["MalibuMocking", "MalibuTransport", "MalibuCore", httpTypes],
      path: "Tests/MockingTests",
      resources: [.copy("Fixtures")]
    ),
    .testTarget(
      name: "MalibuStorageTests",
      dependencies: ["MalibuStorage", "MalibuTransport", "MalibuCore", httpTypes],
      path: "Tests/StorageTests"
    ),
    .testTarget(
      name: "MalibuTypedRequestsTests",
      dependencies: [
        "MalibuTypedRequests", "MalibuMocking", "MalibuSerialization", "MalibuTransport", "MalibuCore",
        "MalibuTestSupport", httpTypes,
      ],
      path: "Tests/TypedRequestsTests"
    ),
    .testTarget(
      name: "MalibuTests",
      dependencies: ["Malibu", "MalibuCore", "MalibuTestSupport", "MalibuNameClashStandIn", httpTypes],
      path: "Tests/MalibuTests",
      resources: [.copy("Fixtures")]
    ),
    .testTarget(
      name: "MalibuOpenAPITests",
      dependencies: [
        "MalibuOpenAPI", "MalibuOpenAPIExampleClient", "MalibuMocking", "MalibuTransport", "MalibuCore", httpTypes,
        .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
      ],
      path: "Tests/OpenAPITests"
    ),
    .testTarget(
      name: "MalibuTracingTests",
      dependencies: [
        "MalibuTracing", "MalibuCurl", "MalibuStorage", "MalibuTransport", "MalibuCore", "MalibuTestSupport", httpTypes,
        .product(name: "Tracing", package: "swift-distributed-tracing"),
        .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
      ],
      path: "Tests/TracingTests"
    ),
    .testTarget(
      name: "MalibuMetricsTests",
      dependencies: [
        "MalibuMetrics", "MalibuCurl", "MalibuTransport", "MalibuTestSupport", httpTypes,
        .product(name: "CoreMetrics", package: "swift-metrics"),
        .product(name: "MetricsTestKit", package: "swift-metrics"),
      ],
      path: "Tests/MetricsTests"
    ),
    .testTarget(
      name: "MalibuLifecycleTests",
      dependencies: [
        "MalibuLifecycle", "Malibu", "MalibuCore", "MalibuTestSupport", httpTypes,
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "ServiceLifecycleTestKit", package: "swift-service-lifecycle"),
      ],
      path: "Tests/LifecycleTests"
    ),
    .testTarget(
      name: "SurfTests",
      dependencies: ["SurfCore", "Malibu", "MalibuCore", "MalibuStorage", httpTypes],
      path: "Tests/SurfTests"
    ),

    // README.md's Swift blocks, compiled (Tools/scripts/readme-snippets writes README+Snippets.swift) and partly run;
    // "On a server" imports the integrations.
    .testTarget(
      name: "MalibuReadmeTests",
      dependencies: [
        "Malibu", "MalibuCore", "MalibuEncoding", "MalibuValidation", "MalibuSerialization", "MalibuTransport",
        "MalibuTypedRequests", "MalibuURLSession", curlWhereItExists, "MalibuOpenAPI", "MalibuOpenAPIExampleClient",
        "MalibuTracing", "MalibuMetrics", "MalibuLifecycle", httpTypes, swiftLog,
        .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
        .product(name: "Tracing", package: "swift-distributed-tracing"),
        .product(name: "Metrics", package: "swift-metrics"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "UnixSignals", package: "swift-service-lifecycle"),
      ],
      path: "Tests/ReadmeTests",
      resources: [.copy("Fixtures")]
    ),

    // Integration suite: every transport against local httpbin and nginx (started by the suite itself).
    .testTarget(
      name: "MalibuIntegrationTests",
      dependencies: [
        "Malibu", "MalibuCurl", "MalibuURLSession", "MalibuTransport", "MalibuEncoding", "MalibuGzip", "MalibuCore",
        "MalibuAuth", "MalibuStorage", "MalibuMocking", "MalibuTestSupport", httpTypes,
        // Integration/OpenAPI: the generated client through MalibuOpenAPI.
        "MalibuOpenAPI", "MalibuOpenAPIExampleClient",
        .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
        // Integration/Surf runs the built `surf` binary: depending on it makes `swift build --build-tests` build it.
        "surf",
      ],
      path: "Integration"
    ),
  ]
)

// Settings once, for every Swift target: the upcoming features the whole code base is written for.
// Strict flags (-warnings-as-errors, -require-explicit-sendable) and the traits come from the Makefile.
for target in package.targets where target.type != .system {
  target.swiftSettings = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
    .enableUpcomingFeature("InternalImportsByDefault"),
  ]
}

// `make docs` only (MALIBU_DOCS=1): the DocC plugin, so that users of the library never fetch it.
if Context.environment["MALIBU_DOCS"] != nil {
  package.dependencies.append(.package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"))
}
