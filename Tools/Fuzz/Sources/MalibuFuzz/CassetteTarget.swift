import Foundation
import MalibuMocking

/// One cassette entry decoded from bytes, as a replaying `CassetteTransport` reads every entry of its directory:
/// bad bytes are refused with a `CassetteError`, never a trap. An accepted entry names only its own body file, within
/// the size limit, and encodes to JSON that decodes to the same recording.
enum CassetteTarget {
  static func run(_ bytes: UnsafeRawBufferPointer) {
    let name = "0001-GET-fuzz.json"
    guard let recording = try? CassetteRecording.decode(Data(bytes), entryName: name, maximumBodySize: 1 << 20) else {
      return
    }
    if let body = recording.response?.body {
      precondition(body.file == "0001-GET-fuzz.body", "an entry named a body file other than its own")
      precondition(body.size <= 1 << 20, "an entry declared a body past the limit")
    }
    precondition((recording.response == nil) != (recording.failure == nil), "an entry with neither or both outcomes")
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    guard let encoded = try? encoder.encode(recording) else { fatalError("an accepted entry cannot be encoded") }
    do {
      let again = try CassetteRecording.decode(encoded, entryName: name, maximumBodySize: 1 << 20)
      precondition(again == recording, "an entry changed when encoded and decoded again")
    } catch {
      fatalError("an accepted entry, encoded, is refused: \(error)")
    }
  }
}
