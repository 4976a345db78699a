public import Foundation

extension String.Encoding {
  /// The encoding for an IANA character-set name, as found in the `charset` parameter of a `Content-Type`.
  ///
  /// Names are matched case-insensitively; surrounding spaces and double quotes are ignored. The supported
  /// names and their aliases:
  ///
  /// | Names | Encoding |
  /// |---|---|
  /// | `utf-8`, `utf8` | `.utf8` |
  /// | `us-ascii`, `ascii`, `ansi_x3.4-1968`, `iso646-us`, `csascii` | `.ascii` |
  /// | `iso-8859-1`, `iso_8859-1`, `iso8859-1`, `latin1`, `l1`, `cp819`, `ibm819`, `csisolatin1` | `.isoLatin1` |
  /// | `iso-8859-2`, `iso_8859-2`, `iso8859-2`, `latin2`, `l2`, `csisolatin2` | `.isoLatin2` |
  /// | `windows-1250` … `windows-1254`, `cp1250` … `cp1254` | `.windowsCP1250` … `.windowsCP1254` |
  /// | `utf-16`, `utf16` | `.utf16` (byte order from the BOM, big-endian without one) |
  /// | `utf-16le`, `utf-16be` | `.utf16LittleEndian`, `.utf16BigEndian` |
  /// | `utf-32`, `utf32` | `.utf32` (byte order from the BOM, big-endian without one) |
  /// | `utf-32le`, `utf-32be` | `.utf32LittleEndian`, `.utf32BigEndian` |
  /// | `shift_jis`, `shift-jis`, `sjis`, `ms_kanji`, `csshiftjis`, `windows-31j`, `cp932` | `.shiftJIS` |
  /// | `euc-jp`, `eucjp`, `cseucpkdfmtjapanese` | `.japaneseEUC` |
  /// | `iso-2022-jp`, `csiso2022jp` | `.iso2022JP` |
  ///
  /// ```swift
  /// String.Encoding(ianaCharsetName: "\"UTF-8\"")     // .utf8
  /// String.Encoding(ianaCharsetName: "koi8-r")        // nil: not supported
  /// ```
  ///
  /// - Parameter ianaCharsetName: The name, for example `"utf-8"` or `"Windows-1251"`.
  public init?(ianaCharsetName: String) {
    var name = Substring(ianaCharsetName.lowercased())
    name = name.drop { $0 == " " || $0 == "\t" }
    while let last = name.last, last == " " || last == "\t" { name = name.dropLast() }
    if name.count >= 2, name.first == "\"", name.last == "\"" { name = name.dropFirst().dropLast() }
    guard let encoding = Self.ianaNames[String(name)] else { return nil }
    self = encoding
  }

  private static let ianaNames: [String: String.Encoding] = {
    var names: [String: String.Encoding] = [:]
    func add(_ encoding: String.Encoding, _ aliases: String...) {
      for alias in aliases { names[alias] = encoding }
    }
    add(.utf8, "utf-8", "utf8")
    add(.ascii, "us-ascii", "ascii", "ansi_x3.4-1968", "iso646-us", "csascii")
    add(.isoLatin1, "iso-8859-1", "iso_8859-1", "iso8859-1", "latin1", "l1", "cp819", "ibm819", "csisolatin1")
    add(.isoLatin2, "iso-8859-2", "iso_8859-2", "iso8859-2", "latin2", "l2", "csisolatin2")
    add(.windowsCP1250, "windows-1250", "cp1250")
    add(.windowsCP1251, "windows-1251", "cp1251")
    add(.windowsCP1252, "windows-1252", "cp1252")
    add(.windowsCP1253, "windows-1253", "cp1253")
    add(.windowsCP1254, "windows-1254", "cp1254")
    add(.utf16, "utf-16", "utf16")
    add(.utf16LittleEndian, "utf-16le", "utf16le")
    add(.utf16BigEndian, "utf-16be", "utf16be")
    add(.utf32, "utf-32", "utf32")
    add(.utf32LittleEndian, "utf-32le", "utf32le")
    add(.utf32BigEndian, "utf-32be", "utf32be")
    add(.shiftJIS, "shift_jis", "shift-jis", "sjis", "ms_kanji", "csshiftjis", "windows-31j", "cp932")
    add(.japaneseEUC, "euc-jp", "eucjp", "cseucpkdfmtjapanese")
    add(.iso2022JP, "iso-2022-jp", "csiso2022jp")
    return names
  }()
}
