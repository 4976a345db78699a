import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The deterministic content of nginx's static files, so tests can check any download byte for byte.
///
/// Every file is a run of 64-byte text lines: the line number as 8 decimal digits, a space, 54 characters of
/// the base64 alphabet drawn from a SplitMix64 stream seeded by the line number, and a newline. Not all zeros,
/// compressible by gzip (about 25 %), and any byte range can be computed without reading the file:
/// `StaticContent.bytes(in: 1000..<2000)` is what `GET /identity/1m.bin` with `Range: bytes=1000-1999` returns.
enum StaticContent {
  /// One static file served by ``LocalServers/nginx()``.
  struct File: Sendable, Hashable {
    /// The file's name, which is also its path on the server: `/1k.bin`.
    let name: String
    /// The file's size in bytes.
    let size: Int
  }

  /// 1 KiB.
  static let small = File(name: "1k.bin", size: 1024)
  /// 1 MiB.
  static let medium = File(name: "1m.bin", size: 1 << 20)
  /// 100 MiB.
  static let large = File(name: "100m.bin", size: 100 << 20)
  /// Every static file.
  static let files = [small, medium, large]

  /// The length of one line.
  static let lineLength = 64

  private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

  /// The bytes at `range` of every static file (they all share one stream). Negative offsets are clamped to 0.
  static func bytes(in range: Range<Int>) -> [UInt8] {
    let lower = max(0, range.lowerBound)
    let upper = max(lower, range.upperBound)
    guard upper > lower else { return [] }
    var result = [UInt8]()
    result.reserveCapacity(upper - lower)
    var line = [UInt8](repeating: 0, count: lineLength)
    var offset = lower
    while offset < upper {
      let lineNumber = offset / lineLength
      line.withUnsafeMutableBufferPointer { fill(line: lineNumber, into: $0.baseAddress!) }
      let start = offset - lineNumber * lineLength
      let end = min(lineLength, start + (upper - offset))
      result += line[start..<end]
      offset += end - start
    }
    return result
  }

  /// All of `file`'s bytes.
  static func data(of file: File) -> Data {
    Data(bytes(in: 0..<file.size))
  }

  private static let materializing = Mutex(())

  /// ``materialize(in:)``, one caller at a time: concurrent server starts in one process write the files once.
  static func materializeOnce(in directory: URL) throws {
    try materializing.withLock { _ in try materialize(in: directory) }
  }

  /// Writes the static files into `directory`, each only when it is missing or not what it should be.
  /// A file is written under a temporary name and renamed, so concurrent test processes never see half a file.
  static func materialize(in directory: URL) throws {
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    for file in files {
      let url = directory.appendingPathComponent(file.name)
      if isIntact(file, at: url) { continue }
      let temporary = directory.appendingPathComponent(".\(file.name).\(UUID().uuidString)")
      try write(file, to: temporary)
      // rename(2) replaces atomically, also when another test process renamed the same file a moment ago.
      guard rename(temporary.path, url.path) == 0 else {
        let code = errno
        try? FileManager.default.removeItem(at: temporary)
        throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
      }
    }
  }

  /// Whether the file at `url` has `file`'s size and its first and last lines.
  static func isIntact(_ file: File, at url: URL) -> Bool {
    guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
      (attributes[.size] as? NSNumber)?.intValue == file.size,
      let handle = try? FileHandle(forReadingFrom: url)
    else { return false }
    defer { try? handle.close() }
    guard let head = try? handle.read(upToCount: lineLength), head == Data(bytes(in: 0..<lineLength)) else {
      return false
    }
    let tailOffset = file.size - lineLength
    guard (try? handle.seek(toOffset: UInt64(tailOffset))) != nil,
      let tail = try? handle.read(upToCount: lineLength)
    else { return false }
    return tail == Data(bytes(in: tailOffset..<file.size))
  }

  private static func write(_ file: File, to url: URL) throws {
    guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
      throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
    }
    let handle = try FileHandle(forWritingTo: url)
    defer { try? handle.close() }
    let chunkLines = 16_384  // 1 MiB
    var chunk = [UInt8](repeating: 0, count: chunkLines * lineLength)
    var line = 0
    let lineCount = file.size / lineLength
    while line < lineCount {
      let count = min(chunkLines, lineCount - line)
      chunk.withUnsafeMutableBufferPointer { buffer in
        for index in 0..<count {
          fill(line: line + index, into: buffer.baseAddress! + index * lineLength)
        }
      }
      try handle.write(contentsOf: chunk[0..<(count * lineLength)])
      line += count
    }
    let rest = file.size - lineCount * lineLength
    if rest > 0 {
      try handle.write(contentsOf: bytes(in: (lineCount * lineLength)..<file.size))
    }
  }

  /// Writes line `line` (64 bytes) at `pointer`.
  private static func fill(line: Int, into pointer: UnsafeMutablePointer<UInt8>) {
    var number = line % 100_000_000
    for index in stride(from: 7, through: 0, by: -1) {
      pointer[index] = UInt8(ascii: "0") + UInt8(number % 10)
      number /= 10
    }
    pointer[8] = UInt8(ascii: " ")
    var state = UInt64(truncatingIfNeeded: line) &* 0x9E37_79B9_7F4A_7C15 ^ 0x4D61_6C69_6275_2121
    var position = 9
    alphabet.withUnsafeBufferPointer { symbols in
      while position < lineLength - 1 {
        // SplitMix64.
        state = state &+ 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        value ^= value >> 31
        for _ in 0..<10 where position < lineLength - 1 {
          pointer[position] = symbols[Int(value & 63)]
          value >>= 6
          position += 1
        }
      }
    }
    pointer[lineLength - 1] = UInt8(ascii: "\n")
  }
}
