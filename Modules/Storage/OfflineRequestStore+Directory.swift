public import Foundation

extension OfflineRequestStore {
  /// The default place for a store: `<data directory>/malibu/offline/<name>`, where the data directory is
  /// Application Support on Apple platforms, and `$XDG_DATA_HOME` (or `~/.local/share`) elsewhere.
  ///
  /// The name is one path component inside `malibu/offline`: a name that is empty, `.` or `..`, or that contains
  /// `/` or a NUL byte, is refused rather than changed, so that no name points outside the stores' root or onto
  /// another name's store.
  /// - Parameter name: A name per networking, so that each keeps its own store.
  /// - Returns: The directory URL (created by the first operation of the store that owns it).
  /// - Throws: ``StorageError`` with code ``StorageError/Code/invalidName`` for a name that is not one plain path
  ///   component.
  public static func defaultDirectory(name: String) throws(StorageError) -> URL {
    let reason: String? =
      switch name {
      case "": "is empty"
      case ".", "..": "is a relative path component"
      case _ where name.contains("/"): "contains '/'"
      case _ where name.contains("\0"): "contains a NUL byte"
      default: nil
      }
    if let reason {
      throw StorageError(
        code: .invalidName,
        message: "the offline store name \(reason); use one plain path component such as \"sharkywaters\""
      )
    }
    return storesRoot.appendingPathComponent(name, isDirectory: true)
  }

  /// The directory of the store named `"default"`: `<data directory>/malibu/offline/default` (see
  /// ``defaultDirectory(name:)``).
  /// - Returns: The directory URL (created by the first operation of the store that owns it).
  public static func defaultDirectory() -> URL {
    storesRoot.appendingPathComponent("default", isDirectory: true)
  }

  private static var storesRoot: URL {
    dataDirectory()
      .appendingPathComponent("malibu", isDirectory: true)
      .appendingPathComponent("offline", isDirectory: true)
  }

  private static func dataDirectory() -> URL {
    #if canImport(Darwin)
    if let support = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first {
      return support
    }
    #endif
    let environment = ProcessInfo.processInfo.environment
    if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
      return URL(fileURLWithPath: xdg, isDirectory: true)
    }
    return FileManager.default.homeDirectoryForCurrentUser
      .appendingPathComponent(".local", isDirectory: true)
      .appendingPathComponent("share", isDirectory: true)
  }
}
