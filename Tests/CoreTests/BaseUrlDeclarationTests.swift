import Foundation
import MalibuCore
import Testing

/// The base URL declared as a stored constant, the README's spelling.
private enum StoredBase: RequestConvertible {
  case boards
  static let baseUrl: (any URLStringConvertible)? = "http://127.0.0.1:8080/api/"
  var request: Request { .get("boards") }
}

/// The base URL computed on each read, here from a `URL`.
private enum ComputedBase: RequestConvertible {
  case boards
  static var baseUrl: (any URLStringConvertible)? { URL(string: "http://127.0.0.1:8081/v2/") }
  var request: Request { .get("boards") }
}

/// No base URL: the resources are absolute.
private enum NoBase: RequestConvertible {
  case boards
  static let baseUrl: (any URLStringConvertible)? = nil
  var request: Request { .get("http://127.0.0.1:8082/boards") }
}

/// One `baseUrl` declaration, as a user writes it, and what the compiler says about it.
struct BaseUrlDeclaration: Sendable, CustomTestStringConvertible {
  let name: String
  let declaration: String
  /// Whether the file is compiled with the `ExistentialAny` upcoming feature, as this package is.
  var existentialAny = false
  /// The texts the compiler's output must contain; empty when the declaration compiles.
  let diagnostics: [String]

  var testDescription: String { name }
}

@Suite("RequestConvertible.baseUrl")
struct BaseUrlDeclarationTests {
  @Test func everyAcceptedStyleIsTheOneTheNetworkingReads() throws {
    #expect(
      try StoredBase.boards.request.buildURL(baseUrl: StoredBase.baseUrl).absoluteString
        == "http://127.0.0.1:8080/api/boards"
    )
    #expect(
      try ComputedBase.boards.request.buildURL(baseUrl: ComputedBase.baseUrl).absoluteString
        == "http://127.0.0.1:8081/v2/boards"
    )
    #expect(NoBase.baseUrl == nil)
    #expect(
      try NoBase.boards.request.buildURL(baseUrl: NoBase.baseUrl).absoluteString
        == "http://127.0.0.1:8082/boards"
    )
  }

  @Test func aRelativeResourceWithoutABaseURLNamesTheDeclaration() throws {
    let error = #expect(throws: NetworkError.self) { try Request.get("boards").buildURL(baseUrl: nil) }
    #expect(error?.code == .invalidURL)
    #expect(
      error?.message == "the resource 'boards' is relative and there is no base URL to join it to: pass a base URL "
        + "(an endpoint type declares `static let baseUrl: (any URLStringConvertible)? = \"https://…\"`), or make "
        + "the resource an absolute URL"
    )
    // The same request builds once a base URL is given.
    #expect(
      try Request.get("boards").buildURL(baseUrl: "http://127.0.0.1/").absoluteString == "http://127.0.0.1/boards"
    )
  }

  static let declarations: [BaseUrlDeclaration] = [
    BaseUrlDeclaration(
      name: "the protocol's type",
      declaration: "static let baseUrl: (any URLStringConvertible)? = \"http://127.0.0.1/api/\"",
      existentialAny: true,
      diagnostics: []
    ),
    BaseUrlDeclaration(
      name: "API.md's spelling, without ExistentialAny",
      declaration: "static let baseUrl: URLStringConvertible? = \"http://127.0.0.1/api/\"",
      diagnostics: []
    ),
    BaseUrlDeclaration(
      name: "API.md's spelling, with ExistentialAny: a warning only",
      declaration: "static let baseUrl: URLStringConvertible? = \"http://127.0.0.1/api/\"",
      existentialAny: true,
      diagnostics: [
        "warning: use of protocol 'URLStringConvertible' as a type must be written 'any URLStringConvertible'"
      ]
    ),
    BaseUrlDeclaration(
      name: "computed, of the protocol's type",
      declaration: "static var baseUrl: (any URLStringConvertible)? { URL(string: \"http://127.0.0.1/api/\") }",
      existentialAny: true,
      diagnostics: []
    ),
    BaseUrlDeclaration(
      name: "an inferred String",
      declaration: "static let baseUrl = \"http://127.0.0.1/api/\"",
      diagnostics: [
        "error: type 'Endpoint' does not conform to protocol 'RequestConvertible'",
        "candidate has non-matching type 'String'",
        "protocol requires property 'baseUrl' with type '(any URLStringConvertible)?'",
      ]
    ),
    BaseUrlDeclaration(
      name: "a URL?",
      declaration: "static let baseUrl: URL? = URL(string: \"http://127.0.0.1/api/\")",
      diagnostics: [
        "error: type 'Endpoint' does not conform to protocol 'RequestConvertible'",
        "candidate has non-matching type 'URL?'",
      ]
    ),
    BaseUrlDeclaration(
      name: "a computed String",
      declaration: "static var baseUrl: String { \"http://127.0.0.1/api/\" }",
      diagnostics: [
        "error: type 'Endpoint' does not conform to protocol 'RequestConvertible'",
        "candidate has non-matching type 'String'",
      ]
    ),
    BaseUrlDeclaration(
      name: "a computed, non-optional URLStringConvertible",
      declaration: "static var baseUrl: URLStringConvertible { return \"http://127.0.0.1/api/\" }",
      diagnostics: [
        "error: type 'Endpoint' does not conform to protocol 'RequestConvertible'",
        "candidate has non-matching type 'any URLStringConvertible'",
      ]
    ),
    BaseUrlDeclaration(
      name: "the seed's stored static var",
      declaration: "static var baseUrl: URLStringConvertible? = \"http://127.0.0.1/api/\"",
      diagnostics: [
        "error: static property 'baseUrl' is not concurrency-safe because it is nonisolated global shared mutable state",
        "convert 'baseUrl' to a 'let' constant",
      ]
    ),
    BaseUrlDeclaration(
      name: "none at all",
      declaration: "",
      diagnostics: [
        "error: type 'Endpoint' does not conform to protocol 'RequestConvertible'",
        "protocol requires property 'baseUrl' with type '(any URLStringConvertible)?'",
      ]
    ),
  ]

  /// Type-checks an endpoint type with the declaration against this build's MalibuCore, as a user's package would.
  @Test(arguments: declarations)
  func theCompilerAcceptsOnlyTheRequirementsType(_ testCase: BaseUrlDeclaration) throws {
    let source = """
      import Foundation
      import MalibuCore

      enum Endpoint: RequestConvertible {
        case boards
        \(testCase.declaration)
        var request: Request { .get("boards") }
      }

      """
    let result = try typeCheck(source, existentialAny: testCase.existentialAny)
    if testCase.diagnostics.isEmpty {
      #expect(result.status == 0, "\(result.output)")
      #expect(!result.output.contains("warning:") && !result.output.contains("error:"), "\(result.output)")
    } else {
      let isError = testCase.diagnostics.contains { $0.hasPrefix("error:") }
      #expect(result.status == (isError ? 1 : 0), "\(result.output)")
      for diagnostic in testCase.diagnostics {
        #expect(result.output.contains(diagnostic), "\(result.output)")
      }
    }
  }

  /// Runs `swiftc -typecheck` on `source` with the modules of the build that holds this test binary.
  private func typeCheck(_ source: String, existentialAny: Bool) throws -> (status: Int32, output: String) {
    let binary = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    var buildDirectory = binary.deletingLastPathComponent()
    // On macOS the test binary sits inside an .xctest bundle.
    while !FileManager.default.fileExists(atPath: buildDirectory.appendingPathComponent("Modules").path),
      buildDirectory.pathComponents.count > 1
    {
      buildDirectory.deleteLastPathComponent()
    }
    let modules = buildDirectory.appendingPathComponent("Modules")
    try #require(
      FileManager.default.fileExists(atPath: modules.appendingPathComponent("MalibuCore.swiftmodule").path),
      "no MalibuCore.swiftmodule next to the test binary \(binary.path)"
    )
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("baseurl-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let file = folder.appendingPathComponent("Endpoint.swift")
    try Data(source.utf8).write(to: file)

    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    #if canImport(Darwin)
    process.arguments = ["xcrun", "swiftc"]
    #else
    process.arguments = ["swiftc"]
    #endif
    process.arguments! += ["-typecheck", "-swift-version", "6", "-I", modules.path, file.path]
    if existentialAny { process.arguments! += ["-enable-upcoming-feature", "ExistentialAny"] }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: output, as: UTF8.self))
  }
}
