import Foundation

/// The file a ``CookieJar`` keeps its persistent cookies in: JSON, `{"version": 1, "cookies": [...]}`, written with
/// `StoreFile`. What is read back is untrusted: every cookie is checked, and one bad cookie refuses the file.
enum CookieFile {
  /// The format's version; a file of another version is refused.
  static let version = 1

  private struct Contents: Codable {
    var version: Int
    var cookies: [Cookie]
  }

  /// The persistent, unexpired cookies of the file, or `[]` when there is no file.
  /// - Throws: ``StorageError`` with ``StorageError/Code/corruptEntry`` for a file that is not a valid cookie file,
  ///   or ``StorageError/Code/ioFailed`` when it cannot be read.
  static func load(_ file: URL, now: Date) throws(StorageError) -> [Cookie] {
    guard StoreFile.stamp(of: file) != nil else { return [] }
    let (data, _) = try StoreFile.readRegularFile(file, limit: CookieJar.maxFileBytes)
    let contents: Contents
    do {
      contents = try JSONDecoder().decode(Contents.self, from: data)
    } catch {
      throw StorageError(
        code: .corruptEntry,
        message: "the cookie file \(file.lastPathComponent) is not a cookie file; it is ignored",
        underlyingError: error
      )
    }
    guard contents.version == version else {
      throw StorageError(
        code: .corruptEntry,
        message:
          "the cookie file \(file.lastPathComponent) has version \(contents.version), not \(version); it is ignored"
      )
    }
    for (index, cookie) in contents.cookies.enumerated() where !isValid(cookie) || cookie.expires == nil {
      throw StorageError(
        code: .corruptEntry,
        message: "the cookie file \(file.lastPathComponent) holds an invalid cookie (entry \(index)); it is ignored"
      )
    }
    return contents.cookies.filter { !$0.isExpired(at: now) }
  }

  /// Writes the cookies, creating the directory if needed.
  static func save(_ cookies: [Cookie], to file: URL) throws(StorageError) {
    let data: Data
    do {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys]
      data = try encoder.encode(Contents(version: version, cookies: cookies))
    } catch {
      throw StorageError(code: .ioFailed, message: "the cookies could not be encoded", underlyingError: error)
    }
    try StoreFile.createDirectory(file.deletingLastPathComponent())
    try StoreFile.write(data, to: file)
  }

  /// Whether a cookie can be stored and sent as it is: a non-empty name without `=`, no `;` and no control character
  /// but a tab in name, value, domain or path, a canonical non-empty domain, an absolute path, and the size limit.
  static func isValid(_ cookie: Cookie) -> Bool {
    func isClean(_ text: String) -> Bool {
      !text.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F || $0 == ";" }
    }
    return !cookie.name.isEmpty && isClean(cookie.name) && !cookie.name.contains("=") && isClean(cookie.value)
      && !cookie.domain.isEmpty && isClean(cookie.domain) && !cookie.domain.contains("/")
      && cookie.domain == CookieRules.canonicalDomain(cookie.domain)
      && cookie.path.hasPrefix("/") && isClean(cookie.path)
      && cookie.name.utf8.count + cookie.value.utf8.count <= SetCookie.maxNameValueBytes
  }
}
