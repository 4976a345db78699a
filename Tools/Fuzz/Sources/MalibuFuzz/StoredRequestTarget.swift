import Foundation
import MalibuCore
import MalibuStorage

/// One offline-store entry decoded from a file's bytes (what the store does with every file in its directory): a
/// decoded entry gives its key and file name, and encodes to bytes that decode to the same entry.
enum StoredRequestTarget {
  static func run(_ bytes: UnsafeRawBufferPointer) {
    guard let entry = try? JSONDecoder().decode(StoredRequest.self, from: Data(bytes)) else { return }
    precondition(!entry.key.isEmpty && !entry.fileName.isEmpty, "an entry without a key or file name")
    _ = entry.request
    let written: Data
    do {
      written = try JSONEncoder().encode(entry)
    } catch {
      fatalError("a decoded entry does not encode: \(error)")
    }
    guard let again = try? JSONDecoder().decode(StoredRequest.self, from: written) else {
      fatalError("an entry written by the store does not decode: \(String(decoding: written, as: UTF8.self))")
    }
    precondition(again == entry, "an entry changed when written and read again")
    precondition(again.key == entry.key, "an entry's key changed when written and read again")
  }
}
