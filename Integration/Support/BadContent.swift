import Foundation
import MalibuGzip

/// Broken bodies nginx serves under `/bad/`, each with `Content-Encoding: gzip`, for the bad-input scenarios.
///
/// - `/bad/truncated.gz`: the gzip of the 1 MiB static file, cut in the middle.
/// - `/bad/bomb.gz`: the gzip of 64 MiB of zeros (about 64 KiB on the wire).
/// - `/bad/not-gzip`: plain text that claims to be gzip (a `return` in the nginx config, no file).
enum BadContent {
  /// The size the bomb inflates to.
  static let bombSize = 64 << 20

  /// Writes the files into `directory/bad`, each only when missing.
  static func materialize(in directory: URL) throws {
    let bad = directory.appendingPathComponent("bad")
    try FileManager.default.createDirectory(at: bad, withIntermediateDirectories: true)
    let truncated = bad.appendingPathComponent("truncated.gz")
    if !FileManager.default.fileExists(atPath: truncated.path) {
      let whole = try Gzip.deflate(StaticContent.data(of: StaticContent.medium), format: .gzip)
      try whole.prefix(whole.count / 2).write(to: truncated, options: .atomic)
    }
    let bomb = bad.appendingPathComponent("bomb.gz")
    if !FileManager.default.fileExists(atPath: bomb.path) {
      try Gzip.deflate(Data(count: bombSize), format: .gzip, level: .best).write(to: bomb, options: .atomic)
    }
  }
}
