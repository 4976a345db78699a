import Foundation
import MalibuCore

/// One pass over a multipart body: in-memory runs are copied out, files are read through `FileBody`'s reader
/// straight into the caller's buffer, so a file is never held in memory.
final class MultipartBodyReader: BodyReader {
  /// A piece of the body.
  enum Segment {
    case bytes(Data)
    /// A file, with the delimiter its bytes must not hold when the boundary was chosen by the caller.
    case file(FileBody, check: DelimiterCheck?)
  }

  /// A delimiter looked for in a file's bytes as they are read, and the part they belong to (for the error).
  struct DelimiterCheck {
    let delimiter: [UInt8]
    let partName: String
  }

  private let segments: [Segment]
  private var index = 0
  private var offset = 0
  private var fileReader: (any BodyReader)?
  private var scanner: DelimiterScanner?

  init(segments: [Segment]) {
    self.segments = segments
  }

  func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
    var written = 0
    while written < buffer.count, index < segments.count {
      let space = UnsafeMutableRawBufferPointer(rebasing: buffer[written...])
      switch segments[index] {
      case .bytes(let data):
        let count = min(data.count - offset, space.count)
        data.withUnsafeBytes { bytes in
          space.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count]))
        }
        written += count
        offset += count
        if offset == data.count { next() }
      case .file(let file, let check):
        let reader = try fileReader ?? file.makeReader()
        if fileReader == nil, let check { scanner = DelimiterScanner(check.delimiter) }
        fileReader = reader
        let count = try reader.read(into: space)
        if let check, scanner?.scan(UnsafeRawBufferPointer(rebasing: space[0..<count])) == true {
          // Thrown before these bytes are handed over, so the forged delimiter never reaches the peer.
          let delimiter = String(decoding: check.delimiter, as: UTF8.self)
          throw NetworkError(
            code: .encodingFailed,
            message: "the multipart delimiter '\(delimiter)' occurs in the file of part '\(check.partName)' "
              + "(\(file.url.path)); choose another boundary"
          )
        }
        if count == 0 { next() } else { written += count }
      }
    }
    return written
  }

  private func next() {
    index += 1
    offset = 0
    fileReader = nil
    scanner = nil
  }
}

/// Finds a byte string in a stream read in pieces of any size, a match split across pieces included.
struct DelimiterScanner {
  private let needle: [UInt8]
  /// The last `needle.count - 1` bytes seen, where a match split across pieces starts.
  private var tail: [UInt8] = []

  init(_ needle: [UInt8]) {
    precondition(!needle.isEmpty, "an empty needle")
    self.needle = needle
  }

  /// Whether the needle ends in this piece (starting in it or in the pieces before).
  mutating func scan(_ piece: UnsafeRawBufferPointer) -> Bool {
    let keep = needle.count - 1
    if !tail.isEmpty {
      var seam = tail
      seam.append(contentsOf: piece.prefix(keep))
      if seam.withUnsafeBytes({ Self.contains($0, needle) }) { return true }
    }
    if Self.contains(piece, needle) { return true }
    if piece.count >= keep {
      tail = Array(piece.suffix(keep))
    } else {
      tail.append(contentsOf: piece)
      tail.removeFirst(max(0, tail.count - keep))
    }
    return false
  }

  private static func contains(_ haystack: UnsafeRawBufferPointer, _ needle: [UInt8]) -> Bool {
    guard haystack.count >= needle.count else { return false }
    let first = needle[0]
    var start = 0
    let last = haystack.count - needle.count
    while start <= last {
      guard let found = haystack[start...last].firstIndex(of: first) else { return false }
      var matched = 1
      while matched < needle.count && haystack[found + matched] == needle[matched] { matched += 1 }
      if matched == needle.count { return true }
      start = found + 1
    }
    return false
  }
}
