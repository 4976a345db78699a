internal import Foundation
internal import HTTPTypes
internal import MalibuCore

/// Finding and reading mock files.
enum MockFiles {
  /// The file's URL in the bundle's resources: `name` as a relative path first, then the first file so named in
  /// the resources' folders (in sorted order, so the choice is stable).
  static func locate(_ name: String, in bundle: Bundle) -> URL? {
    guard !name.isEmpty else { return nil }
    let root = bundle.resourceURL ?? bundle.bundleURL
    let direct = root.appendingPathComponent(name)
    if isRegularFile(direct) { return direct }
    if let url = bundle.url(forResource: name, withExtension: nil), isRegularFile(url) { return url }
    guard !name.contains("/") else { return nil }
    guard
      let enumerator = FileManager.default.enumerator(
        at: root,
        includingPropertiesForKeys: [.isRegularFileKey],
        options: [.skipsHiddenFiles]
      )
    else { return nil }
    var matches: [URL] = []
    for case let url as URL in enumerator where url.lastPathComponent == name && isRegularFile(url) {
      matches.append(url)
    }
    return matches.min { $0.path < $1.path }
  }

  /// Reads a mock file.
  static func read(_ url: URL) throws(NetworkError) -> Data {
    guard isRegularFile(url) else {
      throw NetworkError(code: .transportFailed, message: "the mock file '\(url.path)' does not exist")
    }
    do {
      return try Data(contentsOf: url)
    } catch {
      throw NetworkError(
        code: .transportFailed,
        message: "the mock file '\(url.path)' cannot be read",
        underlyingError: error
      )
    }
  }

  /// `Content-Type` by the file's extension: JSON, XML, HTML, plain text, or none for anything else.
  static func headerFields(for fileName: String) -> HTTPFields {
    let types = [
      "json": "application/json",
      "xml": "application/xml",
      "html": "text/html; charset=utf-8",
      "htm": "text/html; charset=utf-8",
      "txt": "text/plain; charset=utf-8",
    ]
    let ext = (fileName as NSString).pathExtension.lowercased()
    guard let type = types[ext] else { return [:] }
    return [.contentType: type]
  }

  private static func isRegularFile(_ url: URL) -> Bool {
    var isDirectory: ObjCBool = false
    return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && !isDirectory.boolValue
  }
}
