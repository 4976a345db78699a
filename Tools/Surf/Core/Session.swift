public import Foundation
public import MalibuStorage

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where `surf` keeps its files: `$XDG_CONFIG_HOME/surf`, else `~/.config/surf`.
public enum ConfigDirectory: Sendable {
  /// The directory (not created).
  /// - Parameter environment: The process environment.
  /// - Returns: The directory's URL.
  public static func url(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
    if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
      return URL(fileURLWithPath: config, isDirectory: true).appendingPathComponent("surf", isDirectory: true)
    }
    let home =
      environment["HOME"].map { URL(fileURLWithPath: $0, isDirectory: true) }
      ?? FileManager.default.homeDirectoryForCurrentUser
    return home.appendingPathComponent(".config/surf", isDirectory: true)
  }
}

/// A named session (`--session NAME`): the cookies and credentials of one host, kept between runs in
/// `<config>/sessions/<host>_<port>/<NAME>.json`, readable by its owner only (mode 0600, directories 0700).
///
/// The cookies are those of a Malibu `CookieJar`, written with `Cookie`'s own `Codable` form, session cookies (no
/// expiry) included: a session is the user's, as a browser profile is.
public struct Session: Sendable {
  /// Saved credentials.
  public struct Auth: Codable, Hashable, Sendable {
    /// `basic` or `bearer`.
    public var type: String
    /// `user:password` for basic, the token for bearer.
    public var credentials: String

    /// Creates credentials.
    /// - Parameters:
    ///   - type: `basic` or `bearer`.
    ///   - credentials: `user:password` or the token.
    public init(type: String, credentials: String) {
      self.type = type
      self.credentials = credentials
    }
  }

  private struct Contents: Codable {
    var auth: Auth?
    var cookies: [Cookie]
  }

  /// The session's file.
  public let fileURL: URL
  /// The credentials saved in the session, if any.
  public var auth: Auth?
  /// The cookies, loaded into a jar the networking uses.
  public let jar: CookieJar

  /// The file of a session: `NAME` alone names one under the configuration directory, per host; a name with a `/`
  /// is a path.
  /// - Parameters:
  ///   - name: The session's name or path.
  ///   - url: The request's URL (its host and port choose the folder).
  ///   - configDirectory: The configuration directory.
  /// - Returns: The file's URL.
  /// - Throws: ``SurfError`` for an empty name, `.` or `..`.
  public static func fileURL(name: String, for url: URL, configDirectory: URL) throws(SurfError) -> URL {
    if name.contains("/") { return URL(fileURLWithPath: (name as NSString).expandingTildeInPath) }
    guard !name.isEmpty, name != ".", name != ".." else { throw SurfError.usage("--session: '\(name)' is not a name") }
    let host = (url.host ?? "localhost").replacingOccurrences(of: ":", with: "_")
    let folder = url.port.map { "\(host)_\($0)" } ?? host
    return configDirectory.appendingPathComponent("sessions/\(folder)/\(name).json")
  }

  /// Loads a session, or starts an empty one when its file does not exist.
  /// - Parameter fileURL: The session's file.
  /// - Throws: ``SurfError`` when the file exists but cannot be read or does not parse.
  public init(fileURL: URL) throws(SurfError) {
    self.fileURL = fileURL
    jar = CookieJar()
    guard FileManager.default.fileExists(atPath: fileURL.path) else { return }
    do {
      let decoder = JSONDecoder()
      decoder.dateDecodingStrategy = .iso8601
      let contents = try decoder.decode(Contents.self, from: Data(contentsOf: fileURL))
      auth = contents.auth
      for cookie in contents.cookies { jar.add(cookie) }
    } catch {
      throw SurfError(
        status: .error,
        message: "the session file '\(fileURL.path)' cannot be read",
        underlyingError: error
      )
    }
  }

  /// Writes the session: its credentials and the jar's unexpired cookies, to a new file renamed over the old one,
  /// created with mode 0600 in a directory of mode 0700.
  /// - Throws: ``SurfError`` when the file cannot be written.
  public func save() throws(SurfError) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    encoder.dateEncodingStrategy = .iso8601
    let now = Date()
    do {
      let data = try encoder.encode(Contents(auth: auth, cookies: jar.all.filter { !$0.isExpired(at: now) }))
      try Self.writePrivately(data, to: fileURL)
    } catch let error as SurfError {
      throw error
    } catch {
      throw SurfError(
        status: .error,
        message: "the session file '\(fileURL.path)' cannot be written",
        underlyingError: error
      )
    }
  }

  /// Writes `data` to a temporary file opened with mode 0600, then renames it to `url`.
  static func writePrivately(_ data: Data, to url: URL) throws {
    let directory = url.deletingLastPathComponent()
    try FileManager.default.createDirectory(
      at: directory,
      withIntermediateDirectories: true,
      attributes: [.posixPermissions: 0o700]
    )
    let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(getpid()).tmp")
    let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else {
      throw SurfError(status: .error, message: "cannot create '\(temporary.path)': \(String(cString: strerror(errno)))")
    }
    fchmod(descriptor, 0o600)  // whatever the umask left
    let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    do {
      try handle.write(contentsOf: data)
      try handle.close()
    } catch {
      unlink(temporary.path)
      throw error
    }
    guard rename(temporary.path, url.path) == 0 else {
      unlink(temporary.path)
      throw SurfError(status: .error, message: "cannot write '\(url.path)'")
    }
  }
}
