public import Foundation

extension OfflineRequestStore {
  /// The default place for a store: `<data directory>/malibu/offline/<name>`, where the data directory is
  /// Application Support on Apple platforms, and `$XDG_DATA_HOME` (or `~/.local/share`) elsewhere.
  /// - Parameter name: A name per networking, so that each keeps its own store; `"default"` unless given.
  /// - Returns: The directory URL (created on the first save).
  public static func defaultDirectory(name: String = "default") -> URL {
    let safeName = name.isEmpty ? "default" : name.replacingOccurrences(of: "/", with: "_")
    return dataDirectory()
      .appendingPathComponent("malibu", isDirectory: true)
      .appendingPathComponent("offline", isDirectory: true)
      .appendingPathComponent(safeName, isDirectory: true)
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
