internal import Foundation
internal import HTTPTypes
internal import MalibuCore

#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Finding and reading mock files.
enum MockFiles {
  /// The file's URL in the bundle's resources: `name` as a relative path first, then the first file so named in
  /// the resources' folders (in sorted order, so the choice is stable).
  static func locate(_ name: String, in bundle: Bundle) -> URL? {
    guard !name.isEmpty, nameProblem(name) == nil else { return nil }
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

  /// Why a mock file name is refused, or `nil` when it is a relative path that stays inside its directory: an
  /// absolute path, a `..` component or a NUL byte is refused.
  static func nameProblem(_ name: String) -> String? {
    if name.hasPrefix("/") { return "is an absolute path" }
    if name.contains("\0") { return "contains a NUL byte" }
    if name.split(separator: "/", omittingEmptySubsequences: false).contains("..") { return "has a '..' component" }
    return nil
  }

  /// The error for a refused mock file name.
  static func refused(_ name: String, _ problem: String) -> NetworkError {
    NetworkError(
      code: .transportFailed,
      message: "the mock file name '\(name)' \(problem): a mock file must be a relative path inside its directory"
    )
  }

  /// Reads a mock file, which must resolve (symbolic links followed) to a regular file inside `root`.
  static func read(_ url: URL, root: URL) throws(NetworkError) -> Data {
    guard isRegularFile(url) else {
      throw NetworkError(code: .transportFailed, message: "the mock file '\(url.path)' does not exist")
    }
    let resolvedRoot = realPath(root.path) ?? root.standardizedFileURL.path
    guard let resolved = realPath(url.path),
      resolved == resolvedRoot || resolved.hasPrefix(resolvedRoot.hasSuffix("/") ? resolvedRoot : resolvedRoot + "/")
    else {
      throw NetworkError(
        code: .transportFailed,
        message: "the mock file '\(url.path)' is a symbolic link that leads outside '\(root.path)'"
      )
    }
    do {
      return try Data(contentsOf: URL(fileURLWithPath: resolved))
    } catch {
      throw NetworkError(
        code: .transportFailed,
        message: "the mock file '\(url.path)' cannot be read",
        underlyingError: error
      )
    }
  }

  private static func realPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
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
