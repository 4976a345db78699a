public import Foundation
@_spi(Malibu) public import MalibuCore

/// A durable store of requests that failed because the host could not be reached, replayed later in the order
/// they were saved.
///
/// One JSON file per entry, named after the SHA-256 of the entry's ``StoredRequest/key`` (method, URL and a digest
/// of the body), so two different requests never overwrite each other while the same request saved twice stays one
/// entry, in its first position. Every write is crash-safe: temporary file, `fsync`, `rename`, `fsync` of the
/// directory; a process killed mid-save leaves either the whole entry or nothing. A corrupt entry file is moved into
/// `corrupt/` and reported; every other entry still loads.
///
/// ```swift
/// let store = OfflineRequestStore(directory: OfflineRequestStore.defaultDirectory(name: "sharkywaters"))
/// try store.save(Request.delete("boards/1", storePolicy: .offline), url: finalURL)
/// for entry in try store.all() {
///   // re-send entry.request; on success:
///   try store.remove(entry)
/// }
/// ```
///
/// One process at a time owns a directory; inside it the store is safe to use from any thread.
public final class OfflineRequestStore: Sendable {
  private struct State: Sendable {
    var nextSequence: UInt64?
  }

  /// The directory holding the entry files.
  public let directory: URL
  private let onProblem: (@Sendable (OfflineStoreProblem) -> Void)?
  // File I/O runs inside the critical section on purpose: it serialises this process's writers, so the sequence
  // number and the file under the same key are decided together. The sections are short and never call out.
  private let state = Locked(State())

  /// Opens (and creates on first write) a store in a directory.
  /// - Parameters:
  ///   - directory: Where the entries live; see ``defaultDirectory(name:)``.
  ///   - onProblem: Called, outside any lock, for every corrupt entry file found while loading.
  public init(directory: URL, onProblem: (@Sendable (OfflineStoreProblem) -> Void)? = nil) {
    self.directory = directory
    self.onProblem = onProblem
  }

  /// The folder corrupt entry files are moved into.
  public var corruptDirectory: URL { directory.appendingPathComponent("corrupt", isDirectory: true) }

  /// Stores a request.
  /// - Parameters:
  ///   - request: The request.
  ///   - url: Its final URL, when known (then the key uses it instead of the resource).
  /// - Returns: The entry as stored, with its sequence number.
  /// - Throws: ``StorageError``: ``StorageError/Code/unsupportedRequest`` for parameters that cannot be stored,
  ///   ``StorageError/Code/ioFailed`` when the file cannot be written.
  @discardableResult
  public func save(_ request: Request, url: URL? = nil) throws(StorageError) -> StoredRequest {
    try save(try StoredRequest(request, url: url))
  }

  /// Stores a snapshot. When an entry with the same ``StoredRequest/key`` is already stored, nothing is written and
  /// that entry is returned: it keeps its place in the replay order.
  /// - Parameter request: The snapshot; its ``StoredRequest/sequence`` is assigned by the store.
  /// - Returns: The entry as stored.
  /// - Throws: ``StorageError`` with code ``StorageError/Code/ioFailed`` when the file cannot be written.
  @discardableResult
  public func save(_ request: StoredRequest) throws(StorageError) -> StoredRequest {
    try locked { state throws(StorageError) -> StoredRequest in
      try DurableFile.createDirectory(directory)
      let file = directory.appendingPathComponent(request.fileName)
      if let existing = try? Self.decode(Data(contentsOf: file)), existing.key == request.key {
        return existing
      }
      var entry = request
      let sequence: UInt64
      if let next = state.nextSequence {
        sequence = next
      } else {
        sequence = (try scan().requests.last?.sequence ?? 0) + 1
      }
      entry.sequence = sequence
      state.nextSequence = sequence + 1
      let data: Data
      do {
        data = try JSONEncoder().encode(entry)
      } catch {
        throw StorageError(code: .unsupportedRequest, message: "the entry cannot be encoded", underlyingError: error)
      }
      try DurableFile.write(data, to: file)
      return entry
    }
  }

  /// Every entry, oldest first. Corrupt files are set aside and reported through `onProblem`.
  /// - Returns: The entries in insertion order.
  /// - Throws: ``StorageError`` with code ``StorageError/Code/ioFailed`` when the directory cannot be read.
  public func all() throws(StorageError) -> [StoredRequest] {
    try load().requests
  }

  /// Every entry, oldest first, and the files that had to be set aside (also reported through `onProblem`).
  /// - Returns: The entries and the problems.
  /// - Throws: ``StorageError`` with code ``StorageError/Code/ioFailed`` when the directory cannot be read.
  public func load() throws(StorageError) -> OfflineStoreContents {
    let contents = try locked { state throws(StorageError) -> OfflineStoreContents in
      let contents = try scan()
      let next = (contents.requests.last?.sequence ?? 0) + 1
      state.nextSequence = max(state.nextSequence ?? next, next)
      return contents
    }
    if let onProblem {
      for problem in contents.problems { onProblem(problem) }
    }
    return contents
  }

  /// Removes an entry (after a successful replay, say). Removing an entry that is not stored does nothing.
  /// - Parameter request: The entry, as returned by ``all()`` or a `save`.
  /// - Throws: ``StorageError`` with code ``StorageError/Code/ioFailed`` when the file cannot be removed.
  public func remove(_ request: StoredRequest) throws(StorageError) {
    try locked { _ throws(StorageError) in
      try DurableFile.remove(directory.appendingPathComponent(request.fileName))
    }
  }

  /// Removes every entry (corrupt files set aside are kept).
  /// - Throws: ``StorageError`` with code ``StorageError/Code/ioFailed`` when a file cannot be removed.
  public func removeAll() throws(StorageError) {
    try locked { _ throws(StorageError) in
      for name in try entryNames() where name.hasSuffix(".json") || name.hasPrefix(DurableFile.temporaryPrefix) {
        try DurableFile.remove(directory.appendingPathComponent(name))
      }
    }
  }

  private func locked<Output>(
    _ body: (inout State) throws(StorageError) -> Output
  ) throws(StorageError) -> Output {
    do {
      return try state.withLock { state in try body(&state) }
    } catch let error as StorageError {
      throw error
    } catch {
      throw StorageError(code: .ioFailed, message: "unexpected error: \(error)", underlyingError: error)
    }
  }

  private func entryNames() throws(StorageError) -> [String] {
    guard FileManager.default.fileExists(atPath: directory.path) else { return [] }
    do {
      return try FileManager.default.contentsOfDirectory(atPath: directory.path)
    } catch {
      throw StorageError(code: .ioFailed, message: "cannot list \(directory.path)", underlyingError: error)
    }
  }

  /// Reads every entry; must run inside the lock.
  private func scan() throws(StorageError) -> OfflineStoreContents {
    var requests: [StoredRequest] = []
    var problems: [OfflineStoreProblem] = []
    for name in try entryNames() {
      let file = directory.appendingPathComponent(name)
      if name.hasPrefix(DurableFile.temporaryPrefix) {
        // An interrupted write: never acknowledged, never an entry.
        try? DurableFile.remove(file)
        continue
      }
      guard name.hasSuffix(".json") else { continue }
      do {
        let entry = try Self.decode(Data(contentsOf: file))
        guard entry.fileName == name else {
          throw StorageError(code: .corruptEntry, message: "the content does not match the file name")
        }
        requests.append(entry)
      } catch {
        problems.append(setAside(name, reason: Self.reason(for: error), error: error))
      }
    }
    requests.sort { ($0.sequence, $0.fileName) < ($1.sequence, $1.fileName) }
    return OfflineStoreContents(requests: requests, problems: problems)
  }

  private func setAside(_ name: String, reason: String, error: any Error) -> OfflineStoreProblem {
    var destination = corruptDirectory.appendingPathComponent(name)
    var attempt = 1
    while FileManager.default.fileExists(atPath: destination.path) {
      destination = corruptDirectory.appendingPathComponent("\(name).\(attempt)")
      attempt += 1
    }
    do {
      try DurableFile.createDirectory(corruptDirectory)
      try DurableFile.move(directory.appendingPathComponent(name), to: destination)
      return OfflineStoreProblem(fileName: name, reason: reason, movedTo: destination, underlyingError: error)
    } catch {
      return OfflineStoreProblem(fileName: name, reason: "\(reason); \(error)", movedTo: nil, underlyingError: error)
    }
  }

  private static func decode(_ data: Data) throws -> StoredRequest {
    try JSONDecoder().decode(StoredRequest.self, from: data)
  }

  private static func reason(for error: any Error) -> String {
    if let error = error as? StorageError { return error.message }
    if error is DecodingError { return "the file is not a valid stored request: \(error)" }
    return "the file cannot be read: \(error)"
  }
}
