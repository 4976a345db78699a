import CZlib

/// How hard a ``Deflater`` works: a zlib level from 0 (store only) to 9 (smallest output), or zlib's default.
///
/// ```swift
/// let deflater = Deflater(format: .gzip, level: .fastest)
/// let custom = CompressionLevel(4)
/// ```
public struct CompressionLevel: Hashable, Sendable, CustomStringConvertible {
  /// The zlib level: `-1` for zlib's default (currently 6), otherwise `0...9`.
  public let value: Int

  /// Creates a level from a zlib level number.
  /// - Parameter value: A level from 0 (no compression) to 9 (best compression); values outside that
  ///   range are clamped to it, so a bad setting never crashes.
  public init(_ value: Int) {
    self.value = min(max(value, 0), 9)
  }

  private init(zlibDefault: Void) {
    self.value = Int(Z_DEFAULT_COMPRESSION)
  }

  /// zlib's default trade-off between speed and size (level 6).
  public static let `default` = CompressionLevel(zlibDefault: ())
  /// Level 0: the data is stored in the format's framing without compression.
  public static let none = CompressionLevel(0)
  /// Level 1: the fastest compression.
  public static let fastest = CompressionLevel(1)
  /// Level 9: the smallest output, at the cost of speed.
  public static let best = CompressionLevel(9)

  /// `default`, or the level number.
  public var description: String {
    value == Int(Z_DEFAULT_COMPRESSION) ? "default" : String(value)
  }
}
