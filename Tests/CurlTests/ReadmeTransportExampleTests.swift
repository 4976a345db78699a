import Foundation
import MalibuCurl
import MalibuTestSupport
import Testing

extension CurlTests {
  /// The guide's transport example (Modules/Malibu/Docs.docc/SingleModules.md) compiles with `import MalibuCurl` alone
  /// (ReadmeTransportExample.swift) and works.
  @Suite struct ReadmeTransportExample {
    /// The address the README's example uses; the compiled copy takes it as a parameter.
    static let readmeAddress = "\"http://127.0.0.1:8080/api/boards?type=1\""

    @Test func sendsTheRequestWithItsAcceptField() async throws {
      let server = try TestServer(echo: .headAndBody)
      defer { server.stop() }
      let url = server.url("/echo?type=1")
      let (answer, data, finalURL) = try await readmeTransportExample(address: url.absoluteString)
      #expect(answer.status == .ok)
      let echoed = String(decoding: data, as: UTF8.self)
      #expect(echoed.hasPrefix("GET /echo?type=1 HTTP/1.1\r\n"))
      #expect(echoed.lowercased().contains("\r\naccept: application/json\r\n"))
      #expect(finalURL == url)
    }

    /// The guide's block that starts with `import MalibuCurl` holds exactly the compiled function's lines (the
    /// address aside), so the example the guide shows is the one this target compiles with that import alone.
    @Test func theReadmeShowsTheCompiledLines() throws {
      let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      let root = here.deletingLastPathComponent().deletingLastPathComponent()
      let readme = try String(
        contentsOf: root.appendingPathComponent("Modules/Malibu/Docs.docc/SingleModules.md"),
        encoding: .utf8
      )
      let compiled = try String(
        contentsOf: here.appendingPathComponent("ReadmeTransportExample.swift"),
        encoding: .utf8
      )

      let readmeBlocks = readme.components(separatedBy: "```swift\n").dropFirst().map {
        $0.components(separatedBy: "\n```")[0]
      }
      let aloneBlocks = readmeBlocks.filter { $0.hasPrefix("import MalibuCurl\n") }
      try #require(aloneBlocks.count == 1, "SingleModules.md has one Swift block that starts with `import MalibuCurl`")
      let shown = aloneBlocks[0].split(separator: "\n").dropFirst().map {
        $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: Self.readmeAddress, with: "address")
      }.filter { !$0.isEmpty }

      let lines = compiled.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
      let start = try #require(lines.firstIndex { $0.hasPrefix("func readmeTransportExample(") })
      let end = try #require(lines.firstIndex { $0.hasPrefix("return (answer, data, finalURL)") })
      #expect(shown == Array(lines[(start + 1)..<end]))
      #expect(compiled.split(separator: "\n").filter { $0.hasPrefix("import ") } == ["import MalibuCurl"])
    }
  }
}
