import Foundation
import MalibuJSON
import Testing

/// MalibuJSON against Foundation on the benchmark's 1,000 `api-mix` payloads (`Tools/Benchmarks/Scripts/bench.py
/// --api-items` generates them once into `.build-bench/www/api/items`, as for `make bench`): every file decodes to
/// equal values with both decoders as the benchmark's `[Item]`, every fourth also as a generic JSON value, and both
/// encoders write the same bytes for what was decoded.
@Suite struct ApiMixDifferentialTests {
  typealias Item = JSONDifferential.Item

  /// The files are checked in this many shards, so that Swift Testing spreads them over the cores.
  static let shards = 8

  /// Every this many files are also decoded as a generic ``JSONDifferential/Value``. A `Codable` value of unknown
  /// shape is found by trying each kind in turn, a thrown error per miss, and Swift Testing takes a backtrace of every
  /// error thrown: all 1,000 files cost half a minute of CPU. The fuzz target `json-codable` walks generic values at length.
  static let genericValueStride = 4

  @Test(arguments: 0..<shards) func decodersAndEncodersAgree(shard: Int) throws {
    let files = try Self.payloads.get()
    try #require(files.count == 1000, "expected the 1,000 api-mix files, found \(files.count)")
    for (index, file) in files.enumerated() where index % Self.shards == shard {
      try Self.compare(file.name, file.data, fromBytes: index % 2 == 1, generic: index % Self.genericValueStride == 0)
    }
  }

  /// One file: decode with both, expect equal values; encode the decoded records with both, expect the same bytes.
  /// MalibuJSON reads the file from `[UInt8]` or `Data`; with `generic`, both decode it as a generic value too.
  static func compare(_ name: String, _ data: Data, fromBytes: Bool, generic: Bool) throws {
    let foundationItems = try JSONDecoder().decode([Item].self, from: data)
    let malibuItems =
      fromBytes
      ? try MalibuJSONDecoder().decode([Item].self, from: [UInt8](data))
      : try MalibuJSONDecoder().decode([Item].self, from: data)
    // Compared first, then expected: `#expect` on the comparison itself would keep both arrays for its message.
    let sameItems = malibuItems == foundationItems
    #expect(sameItems, "\(name): [Item] differs")

    if generic {
      let foundationValue = try JSONDecoder().decode(JSONDifferential.Value.self, from: data)
      let malibuValue = try MalibuJSONDecoder().decode(JSONDifferential.Value.self, from: data)
      let sameValue = malibuValue == foundationValue
      #expect(sameValue, "\(name): the generic JSON value differs")
    }

    let foundationBytes = try JSONEncoder().encode(foundationItems)
    let malibuBytes = try MalibuJSONEncoder().encode(foundationItems)
    if malibuBytes != foundationBytes {
      let sameJSON = JSONDifferential.membersSorted(malibuBytes) == JSONDifferential.membersSorted(foundationBytes)
      #expect(sameJSON, "\(name): the encoders wrote different JSON for the same [Item]")
    }
  }

  @Test func membersSortedKeepsEveryByteButTheOrderOfMembers() {
    let table: [(String, String)] = [
      (#"{"b":1,"a":[{"d":"x","c":null}]}"#, #"{"a":[{"c":null,"d":"x"}],"b":1}"#),
      (#"[1.5e3,"\"}",{"}":{}}]"#, #"[1.5e3,"\"}",{"}":{}}]"#),
      (#"{"a":"\\","a\\":2}"#, #"{"a":"\\","a\\":2}"#),
    ]
    for (input, expected) in table {
      #expect(JSONDifferential.membersSorted(Data(input.utf8)) == Array(expected.utf8))
    }
    #expect(
      JSONDifferential.membersSorted(Data(#"{"a":1.0}"#.utf8)) != JSONDifferential.membersSorted(Data(#"{"a":1}"#.utf8))
    )
  }

  // MARK: - The payloads

  /// The 1,000 files, read once per test process from the benchmark's api-mix folder, which its own generator fills
  /// the first time (`bench.py --api-items` prints the folder).
  static let payloads: Result<[(name: String, data: Data)], any Error> = Result {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let script = root.appendingPathComponent("Tools/Benchmarks/Scripts/bench.py").path
    let output = Pipe()
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", script, "--api-items"]
    process.standardOutput = output
    try process.run()
    let printed = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw GenerationFailure(
        process.terminationStatus == 127
          ? "python3 is missing: install it (`apt-get install -y python3`), then run the tests again"
          : "`python3 \(script) --api-items` failed (exit \(process.terminationStatus))"
      )
    }
    let items = URL(fileURLWithPath: String(decoding: printed, as: UTF8.self).trimmingCharacters(in: .newlines))
    let names = try FileManager.default.contentsOfDirectory(atPath: items.path).filter { $0.hasSuffix(".json") }
    return try names.sorted().map { name in (name, try Data(contentsOf: items.appendingPathComponent(name))) }
  }

  struct GenerationFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
      self.description = description
    }
  }
}
