import Foundation
import MalibuGzip

/// Inflate: the bytes fed whole and in fuzzer-chosen pieces must give the same result, never more than the limit;
/// and whatever the bytes, deflating then inflating them gives them back.
enum GzipTarget {
  static let formats: [Inflater.Format] = [.automatic, .gzip, .zlib, .rawDeflate]
  static let limit = 1 << 20

  static func run(_ bytes: UnsafeRawBufferPointer) {
    var input = FuzzInput(bytes)
    let format = formats[input.choice(formats.count)]
    let pieceSize = Int(input.byte()) + 1
    let stream = input.rest()

    let whole = Result { try Gzip.inflate(stream, format: format, limit: limit) }
    let pieces = Result { () throws -> Data in
      let inflater = Inflater(format: format, limit: limit)
      var output = Data()
      var offset = 0
      while offset < stream.count {
        let end = min(stream.count, offset + pieceSize)
        output.append(try inflater.inflate(stream[offset..<end]))
        offset = end
      }
      try inflater.finish()
      precondition(inflater.totalOut == output.count, "totalOut \(inflater.totalOut) != \(output.count) delivered")
      return output
    }
    switch (whole, pieces) {
    case (.success(let one), .success(let other)):
      precondition(one == other, "whole and piecewise inflate differ")
      precondition(one.count <= limit, "inflated past the limit")
    case (.failure(let one as GzipError), .failure(let other as GzipError)):
      precondition(one.code == other.code, "whole and piecewise inflate fail differently: \(one) / \(other)")
    case (.failure(let error), _), (_, .failure(let error)):
      precondition(error is GzipError, "not a GzipError: \(error)")
      fatalError("whole and piecewise inflate disagree: \(whole) / \(pieces)")
    }

    let packed = try! Gzip.deflate(stream, format: format == .automatic ? .gzip : deflaterFormat(format))
    let unpacked = try! Gzip.inflate(packed, format: format)
    precondition(unpacked == stream, "deflate then inflate did not give the bytes back")
  }

  private static func deflaterFormat(_ format: Inflater.Format) -> Deflater.Format {
    switch format {
    case .zlib: return .zlib
    case .rawDeflate: return .rawDeflate
    default: return .gzip
    }
  }
}
