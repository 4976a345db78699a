import Foundation
import MalibuTransport

/// The bytes of one offline-store entry file, and the checks that turn untrusted bytes back into an entry.
///
/// A file is one header line, `malibu-offline-entry hmac-sha256=<64 hex digits>`, then the entry's JSON. The
/// HMAC-SHA256 covers the file name, a line feed and the JSON, under the store's secret key, so only the store that
/// holds the key can write an entry that loads, and only under its own name.
extension StoredRequest {
  static let entryHeaderPrefix = Array("malibu-offline-entry hmac-sha256=".utf8)

  /// The largest entry file the store writes or reads.
  static let maximumEntrySize = 256 << 20

  /// The entry file's bytes: the authenticated header line and the JSON.
  func entryFile(key: [UInt8]) throws(StorageError) -> Data {
    let json: Data
    do {
      json = try JSONEncoder().encode(self)
    } catch {
      throw StorageError(code: .unsupportedRequest, message: "the entry cannot be encoded", underlyingError: error)
    }
    let mac = SHA256Digest.hexString(Self.entryMAC(key: key, name: fileName, json: json))
    var file = Data(Self.entryHeaderPrefix)
    file.append(contentsOf: Array(mac.utf8))
    file.append(0x0a)
    file.append(json)
    guard file.count <= Self.maximumEntrySize else {
      throw StorageError(
        code: .unsupportedRequest,
        message: "the entry is too large to store (\(file.count) bytes, limit \(Self.maximumEntrySize))"
      )
    }
    return file
  }

  /// Decodes one entry file found under `name`, trusting nothing in it.
  ///
  /// The checks, in order: the header line, the JSON and its fields (``decodeEntryJSON(_:)``), then the HMAC under
  /// `key`, which fails for a forged or altered file, one renamed (reported as such), or one written by another
  /// store. This is the decoding entry point for fuzzing.
  /// - Parameters:
  ///   - bytes: The file's content.
  ///   - name: The file's name in the store directory.
  ///   - key: The store's secret key.
  /// - Returns: The entry.
  /// - Throws: ``StorageError`` with code ``StorageError/Code/corruptEntry`` when the bytes are not an entry or are
  ///   stored under another entry's name, ``StorageError/Code/untrustedEntry`` when the HMAC does not match.
  static func decodeEntry(
    _ bytes: Data,
    named name: String,
    key: [UInt8]
  ) throws(StorageError)
    -> StoredRequest
  {
    let prefix = entryHeaderPrefix
    let headerLength = prefix.count + 64 + 1
    guard bytes.count >= headerLength, bytes.prefix(prefix.count).elementsEqual(prefix),
      bytes[bytes.startIndex + headerLength - 1] == 0x0a,
      let mac = hexBytes(bytes[(bytes.startIndex + prefix.count)..<(bytes.startIndex + headerLength - 1)])
    else {
      throw StorageError(
        code: .untrustedEntry,
        message: "\(name) has no authentication header: it was not written by this store"
      )
    }
    let json = bytes[(bytes.startIndex + headerLength)...]
    let entry = try decodeEntryJSON(Data(json))
    // The HMAC binds the name too, so a valid one means the store wrote this entry under this, its own, name; the
    // name is worked out again only to say why a file fails.
    guard constantTimeEqual(entryMAC(key: key, name: name, json: json), mac) else {
      guard entry.fileName == name else {
        throw StorageError(code: .corruptEntry, message: "\(name) holds another entry than its name says")
      }
      throw StorageError(
        code: .untrustedEntry,
        message: "\(name) does not match its authentication code: forged, altered, or written by another store"
      )
    }
    return entry
  }

  /// Decodes the JSON part of an entry file and checks its fields: a known format version, method, content type,
  /// task and policies, and a sequence number of at least 1.
  /// - Parameter json: The JSON bytes.
  /// - Returns: The entry (not yet authenticated).
  /// - Throws: ``StorageError`` with code ``StorageError/Code/corruptEntry``.
  static func decodeEntryJSON(_ json: Data) throws(StorageError) -> StoredRequest {
    let entry: StoredRequest
    do {
      entry = try JSONDecoder().decode(StoredRequest.self, from: json)
    } catch {
      throw StorageError(
        code: .corruptEntry,
        message: "the file is not a valid stored request: \(error)",
        underlyingError: error
      )
    }
    guard entry.sequence >= 1 else {
      throw StorageError(code: .corruptEntry, message: "sequence 0 is never given to an entry")
    }
    return entry
  }

  private static func entryMAC(key: [UInt8], name: String, json: some Collection<UInt8>) -> [UInt8] {
    var message = Array(name.utf8)
    message.append(0x0a)
    message.append(contentsOf: json)
    return SHA256Digest.hmac(key: key, message)
  }

  private static func hexBytes(_ text: some Collection<UInt8>) -> [UInt8]? {
    func nibble(_ character: UInt8) -> UInt8? {
      switch character {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): character - UInt8(ascii: "0")
      case UInt8(ascii: "a")...UInt8(ascii: "f"): character - UInt8(ascii: "a") + 10
      default: nil
      }
    }
    let characters = Array(text)
    guard characters.count % 2 == 0 else { return nil }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(characters.count / 2)
    for index in stride(from: 0, to: characters.count, by: 2) {
      guard let high = nibble(characters[index]), let low = nibble(characters[index + 1]) else { return nil }
      bytes.append(high << 4 | low)
    }
    return bytes
  }

  private static func constantTimeEqual(_ left: [UInt8], _ right: [UInt8]) -> Bool {
    guard left.count == right.count else { return false }
    var difference: UInt8 = 0
    for index in left.indices { difference |= left[index] ^ right[index] }
    return difference == 0
  }
}
