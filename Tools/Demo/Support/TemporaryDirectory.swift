import Foundation

/// A fresh directory under the system's temporary directory (`TMPDIR`), removed by ``remove()`` — or on SIGINT and
/// SIGTERM, by ``Cleanup``.
struct TemporaryDirectory: Sendable {
  /// The directory.
  let url: URL
  private let cleanupID: Int

  /// Creates `<TMPDIR>/<prefix>-<random>/`.
  init(prefix: String) throws {
    let url = FileManager.default.temporaryDirectory
      .appendingPathComponent("\(prefix)-\(UUID().uuidString.prefix(8).lowercased())", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    self.url = url
    cleanupID = Cleanup.shared.add { try? FileManager.default.removeItem(at: url) }
  }

  /// Removes the directory and everything in it; safe to call more than once.
  func remove() {
    Cleanup.shared.run(cleanupID)
  }

  /// Whether the directory is gone.
  var isRemoved: Bool {
    !FileManager.default.fileExists(atPath: url.path)
  }
}
