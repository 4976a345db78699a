extension Inflater {
  /// The framing of a compressed stream to decode.
  public struct Format: Hashable, Sendable, CustomStringConvertible {
    private let name: String

    private init(_ name: String) {
      self.name = name
    }

    /// Detects the format from the first two bytes: the gzip magic `1f 8b` means gzip, a valid zlib
    /// header (compression method 8, window ≤ 32 KiB, `(CMF × 256 + FLG) % 31 == 0`) means zlib, anything
    /// else is taken as raw deflate (HTTP `deflate` bodies are sometimes sent without the zlib wrapper).
    public static let automatic = Format("automatic")
    /// gzip (RFC 1952), including several concatenated members.
    public static let gzip = Format("gzip")
    /// zlib (RFC 1950), what HTTP `Content-Encoding: deflate` means.
    public static let zlib = Format("zlib")
    /// Raw deflate (RFC 1951) with no header and no checksum.
    public static let rawDeflate = Format("rawDeflate")

    /// The name of the format, for example `gzip`.
    public var description: String { name }

    /// The name people know the format by: `gzip`, `zlib`, `raw deflate`, `automatic`.
    var displayName: String { self == .rawDeflate ? "raw deflate" : name }

    /// The `windowBits` argument of `inflateInit2` for a concrete format.
    var windowBits: Int32 {
      switch self {
      case .gzip: return 15 + 16
      case .zlib: return 15
      default: return -15
      }
    }

    /// The format announced by the first two bytes of a stream.
    static func sniff(_ first: UInt8, _ second: UInt8) -> Format {
      if first == 0x1f && second == 0x8b {
        return .gzip
      }
      let method = first & 0x0f
      let windowLog = first >> 4
      if method == 8 && windowLog <= 7 && (UInt16(first) << 8 | UInt16(second)) % 31 == 0 {
        return .zlib
      }
      return .rawDeflate
    }
  }
}
