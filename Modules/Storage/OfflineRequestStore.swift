public import Foundation
@_spi(Malibu) public import MalibuCore

/// A durable store of requests that failed because the host could not be reached, replayed later in the order
/// they were saved.
///
/// One file per entry, named after the SHA-256 of the entry's ``StoredRequest/key`` (method, URL and a digest
/// of the body), so two different requests never overwrite each other while the same request saved twice stays one
/// entry, in its first position. Every write is crash-safe: temporary file, `fsync`, `rename`, `fsync` of the
/// directory (and creating the directory syncs it and its parent); a process killed mid-save leaves either the whole
/// entry or nothing.
///
/// Every file in the directory is untrusted input. Each entry carries an HMAC-SHA256 of its name and content under
/// the store's secret key (`.key`, 32 random bytes, mode `0600`, made with the first entry), so only requests this
/// store saved are ever loaded: a file that someone else put there (an `uploadFile` entry naming `/etc/passwd`, say)
/// fails the check. Such a file, and any other that is not an entry (bad JSON or fields, a sequence number of 0 or
/// one already taken, another entry's name, not a regular file), is moved into `corrupt/`, reported by ``load()``
/// and by the `save` that found it (see ``OfflineStoreProblem``), and never replayed; every other entry still
/// loads. The key protects against writers that cannot read it: another user with write access to the directory, a
/// restored backup, another store's files. Anyone who can read the key (the app's own user) can forge entries.
///
/// ``load()`` reads only the files that changed since the last call (by inode, size and times), so a second load of
/// an unchanged store costs a directory listing and one `lstat` per entry.
///
/// ```swift
/// let store = OfflineRequestStore(directory: try OfflineRequestStore.defaultDirectory(name: "sharkywaters"))
/// try store.save(Request.delete("boards/1", storePolicy: .offline), url: finalURL)
/// for entry in try store.all() {
///   // re-send entry.request; on success:
///   try store.remove(entry)
/// }
/// ```
///
/// ## One owner per directory
///
/// One instance owns a directory at a time, and this is enforced: the first operation (``save(_:url:)``,
/// ``load()``, ``all()``, ``remove(_:)``, ``removeAll()``) creates the directory if needed and takes an exclusive
/// `flock` on its `.lock` file, which the instance holds until ``close()`` or its deinitialisation. Another owner —
/// another process, or a second instance in the same process (the lock belongs to the open file, not the process) —
/// gets ``StorageError/Code/directoryInUse`` from its first operation, at once and without waiting, and nothing of
/// the owner's is touched. Two workers of one app that both use ``defaultDirectory()`` therefore collide: the second
/// one's first save or replay fails with that error; give each worker its own ``defaultDirectory(name:)``. The kernel
/// drops the lock when the owning process dies, so a crash never leaves a directory locked. Inside its process the
/// owning instance is safe to use from any thread.
///
/// Clean-up of interrupted writes (`.tmp-*` files) removes only files this process named or that were last written
/// before the instance took the lock, so it can never delete a temporary file another writer is still writing.
public final class OfflineRequestStore: Sendable {
  /// A loaded entry and the stamp of the file it was read from.
  struct Indexed: Sendable {
    var stamp: FileStamp
    var entry: StoredRequest
  }

  private struct State: Sendable {
    var key: [UInt8]?
    /// The lock that makes this instance the directory's owner; `nil` until the first operation and after `close()`.
    var owner: DirectoryLock?
    /// The entries as of the last scan or write, by file name.
    var index: [String: Indexed] = [:] {
      didSet { order = nil }
    }
    /// The entries of ``index`` in replay order, checked for duplicate numbers; `nil` after any change.
    var order: [StoredRequest]?
    var scanned = false
    /// How many entry files were read and checked, for tests of the incremental load.
    var filesRead = 0
    /// The highest sequence number given or seen; the next entry gets one more.
    var highestSequence: UInt64 = 0
    /// Files set aside by the running operation.
    var found: [OfflineStoreProblem] = []
    /// Files set aside by a `save` (or a key read), handed to the next ``load()``.
    var unreported: [OfflineStoreProblem] = []
  }

  /// The directory holding the entry files.
  public let directory: URL
  private let onProblem: (@Sendable (OfflineStoreProblem) -> Void)?
  // File I/O runs inside the critical section on purpose: it serialises this process's writers, so the sequence
  // number and the file under the same key are decided together. The sections are short and never call out.
  private let state = Locked(State())

  /// Makes a store for a directory. Nothing is touched yet: the first operation creates the directory if needed and
  /// takes ownership of it (see "One owner per directory" above).
  /// - Parameters:
  ///   - directory: Where the entries live; see ``defaultDirectory(name:)``.
  ///   - onProblem: Called, outside any lock, for every file set aside, by the ``load()`` or `save` that found it.
  public init(directory: URL, onProblem: (@Sendable (OfflineStoreProblem) -> Void)? = nil) {
    self.directory = directory
    self.onProblem = onProblem
  }

  deinit {
    state.withLock { state in state.owner?.release() }
  }

  /// Gives up ownership of the directory, so that another instance or process can open it. The next operation on
  /// this instance takes it back (and fails with ``StorageError/Code/directoryInUse`` if someone else owns it by
  /// then). Deinitialising the store does the same.
  public func close() {
    state.withLock { state in
      state.owner?.release()
      state.owner = nil
      // Whoever owns the directory next may change it: look at it afresh when ownership comes back.
      state.scanned = false
    }
  }

  /// The folder files that are not trusted entries are moved into.
  public var corruptDirectory: URL { directory.appendingPathComponent("corrupt", isDirectory: true) }

  /// Stores a request.
  /// - Parameters:
  ///   - request: The request.
  ///   - url: Its final URL, when known (then the key uses it instead of the resource).
  /// - Returns: The entry as stored, with its sequence number.
  /// - Throws: ``StorageError``: ``StorageError/Code/unsupportedRequest`` for parameters or a body that cannot be
  ///   stored (a body whose encoder does not write JSON), ``StorageError/Code/ioFailed`` when the file cannot be
  ///   written.
  @discardableResult
  public func save(_ request: Request, url: URL? = nil) throws(StorageError) -> StoredRequest {
    try save(try StoredRequest(request, url: url))
  }

  /// Stores a snapshot. When an entry with the same ``StoredRequest/key`` is already stored, nothing is written and
  /// that entry is returned: it keeps its place in the replay order.
  ///
  /// Files found to be bad on the way (on the first use of the store, or under the entry's own name) are set aside,
  /// reported through `onProblem`, and again by the next ``load()``. When the sequence numbers are used up (an entry
  /// numbered `UInt64.max`), the entries are renumbered from 1 in their order first.
  /// - Parameter request: The snapshot; its ``StoredRequest/sequence`` is assigned by the store.
  /// - Returns: The entry as stored.
  /// - Throws: ``StorageError`` with code ``StorageError/Code/ioFailed`` when the file cannot be written,
  ///   ``StorageError/Code/unsupportedRequest`` when the entry cannot be encoded or is larger than 256 MiB.
  @discardableResult
  public func save(_ request: StoredRequest) throws(StorageError) -> StoredRequest {
    var problems: [OfflineStoreProblem] = []
    let entry = try locked { state throws(StorageError) -> StoredRequest in
      defer {
        problems = state.found
        state.unreported += state.found
        state.found = []
      }
      try claim(&state)
      if !state.scanned { try scan(&state) }
      let name = request.fileName
      let file = directory.appendingPathComponent(name)
      if let stamp = StoreFile.stamp(of: file) {
        if let cached = state.index[name], cached.stamp == stamp {
          if cached.entry.key == request.key { return cached.entry }
        } else {
          // Changed behind the store's back: trust it only if it checks out.
          state.index[name] = nil
          if let existing = try readEntry(name, state: &state), existing.entry.key == request.key {
            state.index[name] = existing
            return existing.entry
          }
        }
      }
      if state.highestSequence == .max { try renumber(&state) }
      var entry = request
      entry.sequence = state.highestSequence + 1
      try write(entry, state: &state)
      return entry
    }
    report(problems)
    return entry
  }

  /// Every entry, oldest first. Bad files are set aside and reported through `onProblem`.
  /// - Returns: The entries in insertion order.
  /// - Throws: ``StorageError`` with code ``StorageError/Code/ioFailed`` when the directory cannot be read.
  public func all() throws(StorageError) -> [StoredRequest] {
    try load().requests
  }

  /// Every entry, oldest first, and the files that had to be set aside: by this call (also reported through
  /// `onProblem`) or by a `save` since the last load.
  ///
  /// Only files that changed since the last call are read again.
  /// - Returns: The entries and the problems.
  /// - Throws: ``StorageError`` with code ``StorageError/Code/ioFailed`` when the directory cannot be read.
  public func load() throws(StorageError) -> OfflineStoreContents {
    let (contents, fresh) = try locked { state throws(StorageError) -> (OfflineStoreContents, [OfflineStoreProblem]) in
      defer { state.found = [] }
      try claim(&state)
      try scan(&state)
      let fresh = state.found
      let problems = state.unreported + fresh
      state.unreported = []
      let requests = state.order ?? Self.ordered(state.index).map(\.entry)
      return (OfflineStoreContents(requests: requests, problems: problems), fresh)
    }
    report(fresh)
    return contents
  }

  /// Removes an entry (after a successful replay, say). Removing an entry that is not stored does nothing.
  /// - Parameter request: The entry, as returned by ``all()`` or a `save`.
  /// - Throws: ``StorageError`` with code ``StorageError/Code/ioFailed`` when the file cannot be removed.
  public func remove(_ request: StoredRequest) throws(StorageError) {
    try locked { state throws(StorageError) in
      try claim(&state)
      state.index[request.fileName] = nil
      try StoreFile.remove(directory.appendingPathComponent(request.fileName))
    }
  }

  /// Removes every entry (files set aside and the key are kept).
  /// - Throws: ``StorageError`` with code ``StorageError/Code/ioFailed`` when a file cannot be removed.
  public func removeAll() throws(StorageError) {
    try locked { state throws(StorageError) in
      let owner = try claim(&state)
      state.index = [:]
      for name in try entryNames() where name.hasSuffix(".json") || isStaleTemporary(name, owner: owner) {
        try StoreFile.remove(directory.appendingPathComponent(name))
      }
    }
  }

  /// How many entry files this instance has read and checked so far.
  var entryFilesRead: Int { state.withLock(\.filesRead) }

  /// The bytes of an entry file for `entry` as this store would write it (with its authentication code).
  func entryFile(for entry: StoredRequest) throws(StorageError) -> Data {
    try locked { state throws(StorageError) -> Data in
      try claim(&state)
      return try entry.entryFile(key: try key(&state))
    }
  }

  private func report(_ problems: [OfflineStoreProblem]) {
    guard let onProblem else { return }
    for problem in problems { onProblem(problem) }
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

  /// Makes this instance the directory's owner if it is not yet (creating the directory); must run inside the lock.
  @discardableResult
  private func claim(_ state: inout State) throws(StorageError) -> DirectoryLock {
    if let owner = state.owner { return owner }
    try StoreFile.createDirectory(directory)
    let owner = try DirectoryLock.acquire(in: directory)
    state.owner = owner
    return owner
  }

  /// Whether `name` is a temporary file no live writer can still be writing: one this process named, or one last
  /// written before this instance took the directory's lock.
  private func isStaleTemporary(_ name: String, owner: DirectoryLock) -> Bool {
    guard name.hasPrefix(StoreFile.temporaryPrefix) else { return false }
    if name.hasPrefix(StoreFile.processTemporaryPrefix) { return true }
    guard let stamp = StoreFile.stamp(atPath: directory.path + "/" + name) else { return false }
    return owner.predates(stamp)
  }

  private func entryNames() throws(StorageError) -> [String] {
    try StoreFile.names(in: directory) ?? []
  }

  /// The store's key, read or created on first use; must run inside the lock.
  private func key(_ state: inout State) throws(StorageError) -> [UInt8] {
    if let key = state.key { return key }
    let (key, problem) = try readOrCreateKey()
    if let problem { state.found.append(problem) }
    state.key = key
    return key
  }

  /// Brings the index up to date with the directory, reading only files whose stamp changed, and sets aside every
  /// bad file; must run inside the lock.
  private func scan(_ state: inout State) throws(StorageError) {
    let owner = try claim(&state)
    let directoryPath = directory.path + "/"
    var present = Set<String>()
    var read = Set<String>()
    for name in try entryNames() {
      if name.hasPrefix(StoreFile.temporaryPrefix) {
        // An interrupted write: never acknowledged, never an entry. Removed only when no live writer can own it.
        if isStaleTemporary(name, owner: owner) { try? StoreFile.remove(directory.appendingPathComponent(name)) }
        continue
      }
      guard name.hasSuffix(".json") else { continue }
      guard let stamp = StoreFile.stamp(atPath: directoryPath + name) else { continue }
      present.insert(name)
      if let cached = state.index[name], cached.stamp == stamp { continue }
      state.index[name] = try readEntry(name, state: &state)
      read.insert(name)
    }
    for name in state.index.keys where !present.contains(name) { state.index[name] = nil }
    state.scanned = true
    guard state.order == nil else { return }  // nothing changed since the last check
    // One entry per sequence number: an entry loaded before keeps it over one read now, else the first by name;
    // the others are set aside.
    var previous: UInt64?
    let ordered = state.index.sorted {
      ($0.value.entry.sequence, read.contains($0.key) ? 1 : 0, $0.key)
        < ($1.value.entry.sequence, read.contains($1.key) ? 1 : 0, $1.key)
    }
    for (name, item) in ordered {
      let sequence = item.entry.sequence
      guard sequence != previous else {
        state.index[name] = nil
        let error = StorageError(
          code: .corruptEntry,
          message: "\(name) has the sequence number \(sequence) of an earlier entry"
        )
        state.found.append(setAside(name, error: error))
        continue
      }
      previous = sequence
    }
    state.highestSequence = max(state.highestSequence, previous ?? 0)
    state.order = Self.ordered(state.index).map(\.entry)
  }

  /// Reads and checks one entry file; a bad one is set aside and added to the problems found.
  private func readEntry(_ name: String, state: inout State) throws(StorageError) -> Indexed? {
    // The key is read first: a key that cannot be had is the store's failure, not this file's.
    let key = try key(&state)
    state.filesRead += 1
    do throws(StorageError) {
      let (data, stamp) = try StoreFile.readRegularFile(
        directory.appendingPathComponent(name),
        limit: StoredRequest.maximumEntrySize
      )
      let entry = try StoredRequest.decodeEntry(data, named: name, key: key)
      return Indexed(stamp: stamp, entry: entry)
    } catch {
      state.found.append(setAside(name, error: error))
      return nil
    }
  }

  private func write(_ entry: StoredRequest, state: inout State) throws(StorageError) {
    let name = entry.fileName
    let file = directory.appendingPathComponent(name)
    try StoreFile.write(try entry.entryFile(key: try key(&state)), to: file)
    state.highestSequence = max(state.highestSequence, entry.sequence)
    state.index[name] = StoreFile.stamp(of: file).map { Indexed(stamp: $0, entry: entry) }
  }

  /// The entries in replay order: by sequence number, then file name (the name is the index's key, so no digest is
  /// worked out while sorting).
  private static func ordered(_ index: [String: Indexed]) -> [(name: String, entry: StoredRequest)] {
    index.map { (name: $0.key, entry: $0.value.entry) }.sorted {
      ($0.entry.sequence, $0.name) < ($1.entry.sequence, $1.name)
    }
  }

  /// Numbers the entries 1, 2, 3… in their order. Each new number is at most the old one and they are written
  /// oldest first, so a crash halfway leaves the order intact.
  private func renumber(_ state: inout State) throws(StorageError) {
    let ordered = Self.ordered(state.index).map(\.entry)
    state.highestSequence = 0
    for (offset, original) in ordered.enumerated() {
      var entry = original
      entry.sequence = UInt64(offset + 1)
      if entry.sequence != original.sequence { try write(entry, state: &state) }
      state.highestSequence = entry.sequence
    }
  }

  /// Moves a bad file into `corrupt/` and describes it.
  func setAside(_ name: String, error: StorageError) -> OfflineStoreProblem {
    var destination = corruptDirectory.appendingPathComponent(name)
    var attempt = 1
    while FileManager.default.fileExists(atPath: destination.path) {
      destination = corruptDirectory.appendingPathComponent("\(name).\(attempt)")
      attempt += 1
    }
    do throws(StorageError) {
      try StoreFile.createDirectory(corruptDirectory)
      try StoreFile.move(directory.appendingPathComponent(name), to: destination)
      return OfflineStoreProblem(
        fileName: name,
        code: error.code,
        reason: error.message,
        movedTo: destination,
        underlyingError: error
      )
    } catch let moveError {
      return OfflineStoreProblem(
        fileName: name,
        code: error.code,
        reason: "\(error.message); \(moveError.message)",
        movedTo: nil,
        underlyingError: error
      )
    }
  }
}
