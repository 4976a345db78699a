import Foundation
import MalibuSerialization
import Testing

struct CharsetNameTests {
  static let names: [(String, String.Encoding)] = [
    ("utf-8", .utf8), ("UTF-8", .utf8), ("utf8", .utf8), ("Utf8", .utf8), ("\"utf-8\"", .utf8), (" utf-8 ", .utf8),
    ("us-ascii", .ascii), ("US-ASCII", .ascii), ("ascii", .ascii), ("ANSI_X3.4-1968", .ascii), ("iso646-us", .ascii),
    ("csASCII", .ascii),
    ("iso-8859-1", .isoLatin1), ("ISO-8859-1", .isoLatin1), ("iso_8859-1", .isoLatin1), ("iso8859-1", .isoLatin1),
    ("latin1", .isoLatin1), ("Latin1", .isoLatin1), ("l1", .isoLatin1), ("cp819", .isoLatin1),
    ("ibm819", .isoLatin1), ("csISOLatin1", .isoLatin1),
    ("iso-8859-2", .isoLatin2), ("ISO_8859-2", .isoLatin2), ("iso8859-2", .isoLatin2), ("latin2", .isoLatin2),
    ("l2", .isoLatin2), ("csISOLatin2", .isoLatin2),
    ("windows-1250", .windowsCP1250), ("Windows-1250", .windowsCP1250), ("cp1250", .windowsCP1250),
    ("windows-1251", .windowsCP1251), ("WINDOWS-1251", .windowsCP1251), ("cp1251", .windowsCP1251),
    ("windows-1252", .windowsCP1252), ("cp1252", .windowsCP1252),
    ("windows-1253", .windowsCP1253), ("cp1253", .windowsCP1253),
    ("windows-1254", .windowsCP1254), ("cp1254", .windowsCP1254),
    ("utf-16", .utf16), ("UTF-16", .utf16), ("utf16", .utf16),
    ("utf-16le", .utf16LittleEndian), ("UTF-16LE", .utf16LittleEndian), ("utf16le", .utf16LittleEndian),
    ("utf-16be", .utf16BigEndian), ("UTF-16BE", .utf16BigEndian), ("utf16be", .utf16BigEndian),
    ("utf-32", .utf32), ("UTF-32", .utf32), ("utf32", .utf32),
    ("utf-32le", .utf32LittleEndian), ("UTF-32LE", .utf32LittleEndian), ("utf32le", .utf32LittleEndian),
    ("utf-32be", .utf32BigEndian), ("UTF-32BE", .utf32BigEndian), ("utf32be", .utf32BigEndian),
    ("shift_jis", .shiftJIS), ("Shift_JIS", .shiftJIS), ("shift-jis", .shiftJIS), ("sjis", .shiftJIS),
    ("MS_Kanji", .shiftJIS), ("csShiftJIS", .shiftJIS), ("windows-31j", .shiftJIS), ("cp932", .shiftJIS),
    ("euc-jp", .japaneseEUC), ("EUC-JP", .japaneseEUC), ("eucjp", .japaneseEUC),
    ("csEUCPkdFmtJapanese", .japaneseEUC),
    ("iso-2022-jp", .iso2022JP), ("ISO-2022-JP", .iso2022JP), ("csISO2022JP", .iso2022JP),
    ("\"Shift_JIS\"", .shiftJIS),
  ]

  @Test("IANA names map to encodings, ignoring case, spaces and quotes", arguments: names)
  func knownNames(name: String, encoding: String.Encoding) {
    #expect(String.Encoding(ianaCharsetName: name) == encoding)
  }

  @Test(
    "Unknown names are nil",
    arguments: ["", "\"\"", "koi8-r", "utf-7", "utf-8-bom", "utf8mb4", "iso-8859-15", "gb2312", "big5", "binary", "u"]
  )
  func unknownNames(name: String) {
    #expect(String.Encoding(ianaCharsetName: name) == nil)
  }
}
