import MalibuStorage
import Testing

/// A cause with a description of its own.
private struct DiskFull: Error, CustomStringConvertible {
  var description: String { "no space left on device" }
}

/// A StorageError's description says its cause's text once.
@Suite struct StorageErrorDescriptionTests {
  @Test func theCauseTextAppearsOnce() {
    let quoted = StorageError(code: .ioFailed, message: "unexpected error: \(DiskFull())", underlyingError: DiskFull())
    #expect(quoted.description == "StorageError.ioFailed: unexpected error: no space left on device")
    let wrapped = StorageError(code: .ioFailed, message: quoted.message, underlyingError: quoted)
    #expect(
      wrapped.description
        == "StorageError.ioFailed: unexpected error: no space left on device (cause: StorageError.ioFailed)"
    )
    let unrelated = StorageError(code: .ioFailed, message: "cannot write the entry", underlyingError: DiskFull())
    #expect(unrelated.description == "StorageError.ioFailed: cannot write the entry (cause: no space left on device)")
  }
}
