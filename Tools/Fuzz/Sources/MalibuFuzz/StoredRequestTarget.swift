import Foundation
import MalibuCore

@testable import MalibuStorage

/// One offline-store entry file decoded from bytes, as the store reads every file in its directory (the header line
/// with its HMAC, then the JSON): bad bytes are refused with an error, never a trap. The JSON alone is decoded too,
/// so the fuzzer reaches the fields' checks without forging a MAC; a decoded entry, written as the store writes it,
/// reads back as the same entry under its own name and is refused under another key.
enum StoredRequestTarget {
  static let key = [UInt8](repeating: 0x5A, count: 32)
  static let otherKey = [UInt8](repeating: 0xA5, count: 32)

  static func run(_ bytes: UnsafeRawBufferPointer) {
    let data = Data(bytes)
    _ = try? StoredRequest.decodeEntry(data, named: "fuzz.json", key: key)
    guard let entry = try? StoredRequest.decodeEntryJSON(data) else { return }
    precondition(!entry.key.isEmpty && !entry.fileName.isEmpty, "an entry without a key or file name")
    _ = entry.request
    let file: Data
    do {
      file = try entry.entryFile(key: key)
    } catch {
      fatalError("a decoded entry cannot be written: \(error)")
    }
    let again: StoredRequest
    do {
      again = try StoredRequest.decodeEntry(file, named: entry.fileName, key: key)
    } catch {
      fatalError("an entry written by the store does not read back: \(error)")
    }
    precondition(again == entry, "an entry changed when written and read again")
    precondition(
      (try? StoredRequest.decodeEntry(file, named: entry.fileName, key: otherKey)) == nil,
      "an entry was accepted under another store's key"
    )
  }
}
