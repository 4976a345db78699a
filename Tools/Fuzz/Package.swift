// swift-tools-version:6.2

import Foundation
import PackageDescription

// libFuzzer targets for every parser of Malibu that sees hostile bytes: a package of its own, built only by
// `make fuzz` and `make fuzz-smoke` (debug, `-sanitize=fuzzer,address`, in a scratch folder of its own), so that the
// library's own builds never carry the fuzzer's instrumentation. See Tools/Fuzz/README.md.

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
  name: "MalibuFuzz",
  platforms: [.macOS(.v15)],
  dependencies: [
    .package(path: "../.."),
    // Already in the root package's graph: named because the response-head and redactor targets use its types.
    .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
  ],
  targets: [
    // libFuzzer's driver function, declared for Swift.
    .systemLibrary(name: "CFuzzer", path: "Sources/CFuzzer"),
    // One binary for every target (one link instead of nine); MALIBU_FUZZ_TARGET picks the target at start-up.
    // The targets reach internal parsers through `@testable import` (debug builds).
    .executableTarget(
      name: "malibu-fuzz",
      dependencies: [
        "CFuzzer",
        malibu("MalibuCore"), malibu("MalibuEncoding"), malibu("MalibuValidation"), malibu("MalibuSerialization"),
        malibu("MalibuGzip"), malibu("MalibuCurl"), malibu("MalibuLogging"), malibu("MalibuStorage"),
        malibu("MalibuJSON"), malibu("MalibuTransport"), malibu("MalibuMocking"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
      ],
      path: "Sources/MalibuFuzz"
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
