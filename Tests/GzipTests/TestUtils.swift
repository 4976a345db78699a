import Foundation
import MalibuGzip
import Testing

/// A small deterministic generator, so random samples are the same on every run.
struct SplitMix64: RandomNumberGenerator {
  var state: UInt64

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

enum Fixtures {
  static func randomBytes(_ count: Int, seed: UInt64) -> Data {
    var generator = SplitMix64(state: seed)
    var data = Data(count: count)
    data.withUnsafeMutableBytes { bytes in
      for index in bytes.indices {
        bytes[index] = UInt8.random(in: 0...255, using: &generator)
      }
    }
    return data
  }

  /// JSON-like text, as an API response body would be: compressible but not trivially so.
  static func jsonText(_ count: Int, seed: UInt64 = 7) -> Data {
    var generator = SplitMix64(state: seed)
    let names = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi"]
    let tags = ["swift", "linux", "http", "gzip", "zlib", "json", "async", "promise"]
    var text = "["
    var id = 0
    while text.utf8.count < count {
      let name = names.randomElement(using: &generator)!
      let tag = tags.randomElement(using: &generator)!
      let score = Int.random(in: 0...99_999, using: &generator)
      text += "{\"id\":\(id),\"name\":\"\(name)\",\"email\":\"\(name)\(id)@example.com\","
      text += "\"tags\":[\"\(tag)\"],\"score\":\(score),\"active\":\(score % 2 == 0)},\n"
      id += 1
    }
    return Data(text.utf8.prefix(count))
  }

  static let oneKiBText = jsonText(1024)
  static let textMiB = jsonText(1 << 20)
  static let randomMiB = randomBytes(1 << 20, seed: 42)
}

/// The plain inputs of the round-trip tables.
enum Sample: String, CaseIterable, Sendable, CustomTestStringConvertible {
  case empty
  case oneByte
  case oneKiB
  case randomMiB
  case textMiB

  var data: Data {
    switch self {
    case .empty: return Data()
    case .oneByte: return Data([0x41])
    case .oneKiB: return Fixtures.oneKiBText
    case .randomMiB: return Fixtures.randomMiB
    case .textMiB: return Fixtures.textMiB
    }
  }

  var testDescription: String { rawValue }
}

/// How an input is cut into chunks before it is fed.
enum Chunking: Int, CaseIterable, Sendable, CustomTestStringConvertible {
  case whole = 0
  case oneByte = 1
  case sevenBytes = 7
  case sixtyFourKiB = 65_536

  func size(for count: Int) -> Int {
    self == .whole ? max(count, 1) : rawValue
  }

  var testDescription: String { "\(self)" }
}

extension Data {
  mutating func append(raw bytes: UnsafeRawBufferPointer) {
    if let base = bytes.baseAddress {
      append(base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
    }
  }
}

/// Calls `body` with consecutive slices of `data` of at most `size` bytes (never for empty data).
func forEachChunk(of data: Data, size: Int, _ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
  try data.withUnsafeBytes { raw in
    var offset = 0
    while offset < raw.count {
      let end = Swift.min(offset + size, raw.count)
      try body(UnsafeRawBufferPointer(rebasing: raw[offset..<end]))
      offset = end
    }
  }
}

/// Compresses `data` through the streaming sink API, fed in chunks.
func deflateChunked(_ data: Data, format: Deflater.Format, chunking: Chunking = .whole) throws -> Data {
  let deflater = Deflater(format: format)
  var output = Data()
  try forEachChunk(of: data, size: chunking.size(for: data.count)) { chunk in
    try deflater.deflate(chunk) { output.append(raw: $0) }
  }
  try deflater.finish { output.append(raw: $0) }
  return output
}

/// Decompresses `data` through the streaming sink API, fed in chunks; `finish()` is called at the end.
func inflateChunked(
  _ data: Data,
  format: Inflater.Format = .automatic,
  limit: Int? = nil,
  chunking: Chunking = .whole
) throws -> Data {
  let inflater = Inflater(format: format, limit: limit)
  var output = Data()
  try forEachChunk(of: data, size: chunking.size(for: data.count)) { chunk in
    try inflater.inflate(chunk) { output.append(raw: $0) }
  }
  try inflater.finish()
  return output
}

/// The code of the `GzipError` thrown by `body`, or `nil` when it did not throw one.
func gzipErrorCode(_ body: () throws -> Void) -> GzipError.Code? {
  do {
    try body()
    return nil
  } catch let error as GzipError {
    return error.code
  } catch {
    return nil
  }
}

/// Runs `/bin/gzip` on files in a temporary directory.
enum SystemGzip {
  struct Failure: Error {
    let status: Int32
  }

  /// Writes each input to its own file, runs `gzip <arguments> <files...>` and returns its stdout.
  static func run(_ arguments: [String], inputs: [Data]) throws -> Data {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("malibu-gzip-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    var paths: [String] = []
    for (index, input) in inputs.enumerated() {
      let file = directory.appendingPathComponent("body\(index).bin")
      try input.write(to: file)
      paths.append(file.path)
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/gzip")
    process.arguments = arguments + paths
    let stdout = Pipe()
    process.standardOutput = stdout
    process.standardError = FileHandle.nullDevice
    try process.run()
    let output = stdout.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else { throw Failure(status: process.terminationStatus) }
    return output
  }
}
