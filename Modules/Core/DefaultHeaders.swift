import Foundation
public import HTTPTypes

/// The header fields Malibu adds to every request unless a networking, a service or a request sets its own.
///
/// - `Accept-Encoding: gzip, deflate` — only the codings Malibu's transports decode (Brotli is not offered).
/// - `Accept-Language` — the user's preferred languages, at most six, with decreasing q-values
///   (`en-001, en;q=0.9`).
/// - `User-Agent: Malibu/<version> (<os> <version>; <architecture>)`.
public enum DefaultHeaders: Sendable {
  /// The version of Malibu that goes into the `User-Agent`.
  public static let malibuVersion = "0.1.0"

  /// `gzip, deflate`: the content codings every Malibu transport decodes.
  public static let acceptEncoding = "gzip, deflate"

  /// The user's preferred languages as an `Accept-Language` value.
  public static var acceptLanguage: String {
    acceptLanguage(for: Locale.preferredLanguages)
  }

  /// `Malibu/<version> (<os> <version>; <architecture>)`, for example `Malibu/0.1.0 (Linux 6.1.0; x86_64)`.
  public static let userAgent: String = {
    let version = ProcessInfo.processInfo.operatingSystemVersion
    let system = "\(osName) \(version.majorVersion).\(version.minorVersion).\(version.patchVersion)"
    return "Malibu/\(malibuVersion) (\(system); \(architecture))"
  }()

  /// All three defaults as header fields, built once per process (every request starts from them, so the preferred
  /// languages are read at the first request, not at each).
  public static let fields: HTTPFields = {
    var fields = HTTPFields()
    fields[.acceptEncoding] = acceptEncoding
    fields[.acceptLanguage] = acceptLanguage
    fields[.userAgent] = userAgent
    return fields
  }()

  /// An `Accept-Language` value for the given language tags: at most six, q-values falling by 0.1 from 1.0.
  /// - Parameter languages: Language tags, most preferred first.
  /// - Returns: The header value; `*` when the list is empty.
  public static func acceptLanguage(for languages: [String]) -> String {
    let tags = languages.prefix(6)
    guard !tags.isEmpty else { return "*" }
    return tags.enumerated().map { index, tag in
      index == 0 ? tag : "\(tag);q=\(String(format: "%.1f", 1.0 - Double(index) * 0.1))"
    }.joined(separator: ", ")
  }

  private static var osName: String {
    #if os(Linux)
    return "Linux"
    #elseif os(macOS)
    return "macOS"
    #elseif os(iOS)
    return "iOS"
    #elseif os(tvOS)
    return "tvOS"
    #elseif os(watchOS)
    return "watchOS"
    #elseif os(visionOS)
    return "visionOS"
    #elseif os(Windows)
    return "Windows"
    #else
    return "unknown"
    #endif
  }

  private static var architecture: String {
    #if arch(x86_64)
    return "x86_64"
    #elseif arch(arm64)
    return "arm64"
    #else
    return "unknown"
    #endif
  }
}
