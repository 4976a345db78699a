import Foundation
internal import MalibuTransport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A cassette's directory: its entries read as untrusted input, and new ones written crash-safely (a file is there
/// whole or not at all, as the offline store writes).
struct CassetteDirectory: Sendable {
  /// A recording and the name of its entry file.
  struct Entry: Sendable {
    var name: String
    var number: Int
    var recording: CassetteRecording
  }

  let url: URL
  let maximumBodySize: Int

  /// The number an entry's name starts with (`0012-GET-a.json` → 12), or `nil` for a name that is not an entry's.
  static func number(ofEntry name: String) -> Int? {
    guard name.hasSuffix(".json") || name.hasSuffix(".body") else { return nil }
    let digits = name.prefix { $0.isASCII && $0.isNumber }
    guard digits.count >= 4, name.dropFirst(digits.count).first == "-" else { return nil }
    return Int(digits)
  }

  /// An entry's name: its number, the method and the request's path, made safe for a file name.
  static func entryName(number: Int, method: String, url: String) -> String {
    var path = Substring(url)
    if let scheme = path.range(of: "://") {
      path = path[scheme.upperBound...].drop { $0 != "/" }
    }
    path = path.prefix { $0 != "?" && $0 != "#" }
    var slug = ""
    for character in path {
      if character.isASCII && (character.isLetter || character.isNumber) {
        slug.append(character)
      } else if !slug.isEmpty && slug.last != "-" {
        slug.append("-")
      }
    }
    while slug.last == "-" { slug.removeLast() }
    let padded = String(format: "%04d", number)
    return "\(padded)-\(method)-\(slug.isEmpty ? "root" : String(slug.prefix(48))).json"
  }

  /// The entries, in the order of their numbers; none for a directory that does not exist when `mustExist` is off.
  func entries(mustExist: Bool) throws(CassetteError) -> [Entry] {
    let names: [String]
    do {
      names = try FileManager.default.contentsOfDirectory(atPath: url.path)
    } catch {
      var isDirectory: ObjCBool = false
      if !mustExist, !FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) { return [] }
      throw CassetteError(code: .ioFailed, message: "the cassette \(url.path) cannot be listed: it is not a directory")
    }
    var entries: [Entry] = []
    for name in names where name.hasSuffix(".json") {
      guard let number = Self.number(ofEntry: name) else { continue }
      let data = try read(name, limit: CassetteRecording.largestEntry)
      let recording = try CassetteRecording.decode(data, entryName: name, maximumBodySize: maximumBodySize)
      entries.append(Entry(name: name, number: number, recording: recording))
    }
    return entries.sorted { ($0.number, $0.name) < ($1.number, $1.name) }
  }

  /// The body of an entry, checked against the length and digest the entry declares.
  func body(of entry: Entry) throws(CassetteError) -> Data {
    guard let declared = entry.recording.response?.body else { return Data() }
    let data = try read(declared.file, limit: declared.size)
    guard data.count == declared.size else {
      throw CassetteError(
        code: .truncated,
        message: "\(declared.file) has \(data.count) bytes, and \(entry.name) declares \(declared.size)"
      )
    }
    guard SHA256Digest.hex(data) == declared.sha256 else {
      throw CassetteError(code: .malformedEntry, message: "\(declared.file) does not match the sha256 of \(entry.name)")
    }
    return data
  }

  /// Reads a file of the cassette without following a symbolic link, refusing anything but a regular file and
  /// anything larger than `limit`.
  private func read(_ name: String, limit: Int) throws(CassetteError) -> Data {
    do {
      return try UntrustedFile.read(url.appendingPathComponent(name), limit: limit).data
    } catch {
      switch error.reason {
      case .missing:
        throw CassetteError(code: .truncated, message: "\(name) is missing from the cassette \(url.lastPathComponent)")
      case .symbolicLink:
        throw CassetteError(
          code: .unsafeFile,
          message: "\(name) is a symbolic link; a cassette's files are not followed"
        )
      case .notRegularFile, .severalLinks:
        throw CassetteError(code: .unsafeFile, message: "\(name) is not a regular file")
      case .tooLarge(let size, let limit):
        throw CassetteError(
          code: .tooLarge,
          message: "\(name) has \(size) bytes, more than the \(limit) its cassette allows"
        )
      case .system(let code):
        throw CassetteError(code: .ioFailed, message: "\(name) cannot be read: \(String(cString: strerror(code)))")
      }
    }
  }

  /// Creates the directory if needed and removes every entry and body file in it (a new recording of everything).
  func clear() throws(CassetteError) {
    try create()
    let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
    for name in names where Self.number(ofEntry: name) != nil {
      guard unlink(url.appendingPathComponent(name).path) == 0 || errno == ENOENT else {
        throw CassetteError(code: .ioFailed, message: "\(name) cannot be removed: \(String(cString: strerror(errno)))")
      }
    }
    do { try DurableFile.syncDirectory(url) } catch { throw Self.failure(error) }
  }

  /// Creates the directory and its missing parents.
  func create() throws(CassetteError) {
    do { try DurableFile.createDirectory(url) } catch { throw Self.failure(error) }
  }

  /// Writes an entry: its body file first, so that an entry never names a body that is not there.
  func write(_ recording: CassetteRecording, named name: String, body: Data) throws(CassetteError) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    do {
      if let file = recording.response?.body?.file {
        try DurableFile.write(body, to: url.appendingPathComponent(file))
      }
      var json = try encoder.encode(recording)
      json.append(0x0A)
      try DurableFile.write(json, to: url.appendingPathComponent(name))
    } catch let error as DurableFile.Failure {
      throw Self.failure(error)
    } catch {
      throw CassetteError(code: .ioFailed, message: "\(name) cannot be encoded: \(error)")
    }
  }

  private static func failure(_ failure: DurableFile.Failure) -> CassetteError {
    CassetteError(code: .ioFailed, message: "the cassette cannot be written: \(failure)")
  }
}
