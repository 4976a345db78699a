import Foundation
import MalibuCore

/// One pass over a multipart body: in-memory runs are copied out, files are read through `FileBody`'s reader
/// straight into the caller's buffer, so a file is never held in memory.
final class MultipartBodyReader: BodyReader {
  /// A piece of the body.
  enum Segment {
    case bytes(Data)
    case file(FileBody)
  }

  private let segments: [Segment]
  private var index = 0
  private var offset = 0
  private var fileReader: (any BodyReader)?

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
      case .file(let file):
        let reader = try fileReader ?? file.makeReader()
        fileReader = reader
        let count = try reader.read(into: space)
        if count == 0 { next() } else { written += count }
      }
    }
    return written
  }

  private func next() {
    index += 1
    offset = 0
    fileReader = nil
  }
}
