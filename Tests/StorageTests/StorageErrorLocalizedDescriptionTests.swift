import Foundation
import MalibuStorage
import Testing

/// A StorageError's `localizedDescription` is its message; its `description` names the code and the message.
@Suite("StorageError.localizedDescription")
struct StorageErrorLocalizedDescriptionTests {
  @Test("localizedDescription is the message", arguments: [StorageError.Code.ioFailed, .corruptEntry])
  func texts(code: StorageError.Code) {
    let error = StorageError(code: code, message: "the entry for /boards could not be read")
    #expect((error as any Error).localizedDescription == "the entry for /boards could not be read")
    #expect(String(describing: error).contains("\(code)"))
    #expect(String(describing: error).contains("the entry for /boards could not be read"))
  }
}
