import Foundation
import MalibuTransport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension OfflineRequestStore {
  /// The name of the store's secret key file: 32 random bytes, mode `0600`, created with the first entry.
  static let keyFileName = ".key"
  static let keyLength = 32

  /// Reads the store's key, or creates it when there is none. A key file that is not a private 32-byte regular
  /// file of this user (a link, another owner, readable by others, the wrong size) is set aside and replaced, which
  /// leaves every entry signed with it untrusted.
  /// - Returns: The key, and the problem when a bad key file was set aside.
  func readOrCreateKey() throws(StorageError) -> (key: [UInt8], problem: OfflineStoreProblem?) {
    let file = directory.appendingPathComponent(Self.keyFileName)
    var problem: OfflineStoreProblem?
    for _ in 0..<3 {
      switch readKey(file) {
      case .success(let key?):
        return (key, problem)
      case .success(nil):
        var key = [UInt8](repeating: 0, count: Self.keyLength)
        var generator = SystemRandomNumberGenerator()
        for index in key.indices { key[index] = generator.next() }
        // Another process may create it at the same moment: the first file wins and both read it.
        if try StoreFile.create(Data(key), at: file) { return (key, problem) }
      case .failure(let error):
        problem = setAside(Self.keyFileName, error: error)
        guard problem?.movedTo != nil else { throw error }
      }
    }
    throw StorageError(code: .ioFailed, message: "the store key file \(file.path) keeps changing")
  }

  /// The key, `nil` when there is no key file, or why the file present is not a key to trust.
  private func readKey(_ file: URL) -> Result<[UInt8]?, StorageError> {
    let descriptor: Int32
    let status: stat
    do {
      (descriptor, status) = try UntrustedFile.open(file)
    } catch {
      if error.reason == .missing { return .success(nil) }
      return .failure(
        StorageError(code: .untrustedEntry, message: "the store key file cannot be used: \(error)")
      )
    }
    defer { StoreFile.closeDescriptor(descriptor) }  // `close` alone is the store's own method here
    guard status.st_uid == geteuid(), status.st_mode & 0o077 == 0, status.st_size == Self.keyLength else {
      return .failure(
        StorageError(
          code: .untrustedEntry,
          message: "the store key file is not a private \(Self.keyLength)-byte file of this user"
        )
      )
    }
    var key = [UInt8](repeating: 0, count: Self.keyLength)
    let count = key.withUnsafeMutableBytes { raw in read(descriptor, raw.baseAddress, raw.count) }
    guard count == Self.keyLength else {
      return .failure(StorageError(code: .untrustedEntry, message: "the store key file cannot be read whole"))
    }
    return .success(key)
  }
}
