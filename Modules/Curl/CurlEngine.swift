import CCurl
import MalibuTransport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The loop thread's state: the multi handle, the running transfers and the pool of easy handles. Every libcurl call
/// but `curl_multi_wakeup` happens here, on the loop thread; nothing here is touched by any other thread.
///
/// One round of the loop: take the commands (start, cancel, unpause, run a task's job) → start the waiting transfers
/// there is room for → `curl_multi_perform` → handle the finished transfers (`curl_multi_info_read`) → flush each body
/// channel written to in this round, which wakes each reader at most once per round → start the waiting transfers
/// the finished ones made room for → check idle and total deadlines (of waiting transfers too) → `curl_multi_poll`
/// until a socket is ready, libcurl's own timer or our next deadline is due, or a command arrives
/// (`curl_multi_wakeup`).
///
/// A new transfer reaches libcurl only when its connections can start it (``Admission``); the others wait in
/// ``admission`` as their ``Job``, with no easy handle and no libcurl buffer.
///
/// Its stored state skips the run-time exclusivity checks, as ``Transfer``'s does (see there why, and at what risk).
final class CurlEngine {
  let loop: CurlLoop
  let configuration: CurlTransport.Configuration
  let multi: UnsafeMutableRawPointer
  /// The running transfers, each knowing its place (``Transfer/slot``): adding and retiring one hashes nothing (a
  /// dictionary by id hashed twice per request); the commands that name a transfer by id (cancel, unpause) search.
  @exclusivity(unchecked) private var transfers: [Transfer] = []
  @exclusivity(unchecked) private var dirty: [Transfer] = []
  /// Idle easy handles; `primed` when the options every transfer sets alike are still set on it.
  @exclusivity(unchecked) private var pool: [(handle: UnsafeMutableRawPointer, primed: Bool)] = []
  @exclusivity(unchecked) private var commands: [Command] = []
  @exclusivity(unchecked) private var done: [(UnsafeMutableRawPointer, CURLcode)] = []
  @exclusivity(unchecked) private var expired: [(Transfer, TransportError)] = []
  /// Which transfers libcurl gets now, and the ones that wait for room (each with its total deadline).
  private var admission: Admission<Pending>
  /// The sockets libcurl opened for this engine's transfers (`CURLOPT_SOCKOPTFUNCTION`), so the idle check can ask
  /// a connection's socket when it last received bytes (``socket(localPort:peerPort:)``). A closed one stays until
  /// a lookup finds it gone.
  var sockets = Set<Int32>()

  /// A transfer waiting for room: its job and the moment it must end by, counted from its arrival.
  typealias Pending = (job: Job, deadline: UInt64?)

  init?(loop: CurlLoop) {
    guard CurlGlobal.initialized, let multi = curl_multi_init() else { return nil }
    self.loop = loop
    self.configuration = loop.configuration
    self.multi = multi
    admission = Admission(
      limits: Admission.Limits(
        connections: configuration.maximumConnections,
        connectionsPerHost: configuration.maximumConnectionsPerHost,
        streamsPerConnection: Self.streamsPerConnection
      )
    )
    CCurl_multi_setopt_long(multi, CURLMOPT_PIPELINING, CCurl_PIPE_MULTIPLEX)
    CCurl_multi_setopt_long(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, Self.streamsPerConnection)
    CCurl_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, max(0, configuration.maximumConnections))
    CCurl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, max(0, configuration.maximumConnectionsPerHost))
    CCurl_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, max(1, configuration.maximumIdleConnections))
  }

  /// The concurrent streams libcurl opens on one HTTP/2 connection (`CURLMOPT_MAX_CONCURRENT_STREAMS`, set to its own
  /// default), which ``Admission`` counts on for a host that multiplexes.
  static let streamsPerConnection = 100

  /// Runs rounds until the transport shuts down, or is released and has no transfer left.
  func run() {
    while true {
      let phase = loop.take(into: &commands)
      if phase == .stopping { return }
      for command in commands { apply(command) }
      commands.removeAll(keepingCapacity: true)
      admitWaiting()
      // With nothing running, every waiting transfer had room: none waits either.
      if phase == .draining && transfers.isEmpty { return }

      var running: Int32 = 0
      curl_multi_perform(multi, &running)
      let finishedAny = collectFinished()
      flushDirty()
      admitWaiting()
      // Draining (a graceful shutdown, or the transport released): the last transfer just ended.
      if phase == .draining && finishedAny && transfers.isEmpty { return }
      let wait = checkDeadlines()
      guard wait != 0 else { continue }
      // A caller just woken is likely to send its next request within microseconds: wait for it here rather than
      // fall asleep and be woken through the wake-up socket (two system calls and a context switch).
      if finishedAny && transfers.isEmpty && spinForCommands() { continue }
      if loop.prepareToSleep(in: phase) {
        curl_multi_poll(multi, nil, 0, wait, nil)
      }
    }
  }

  /// Spins for a short while until a command arrives; whether one did.
  private func spinForCommands() -> Bool {
    let until = Monotonic.now() &+ Self.spinNanoseconds
    while !loop.commandsWaiting {
      // Yield rather than burn the core: on a small machine the caller's thread may need this very core.
      sched_yield()
      if Monotonic.now() >= until { return loop.commandsWaiting }
    }
    return true
  }

  /// How long the loop waits for a caller's next command before it sleeps.
  private static let spinNanoseconds: UInt64 = 50_000

  /// Ends every transfer (cancelled) and frees every libcurl resource.
  func close(leftovers: [Command]) {
    for command in commands + leftovers { command.abandon(with: TransportError.shutDown) }
    commands = []
    let waiting = admission.removeAll()
    loop.noteWaiting(0)
    for pending in waiting { pending.job.sink.fail(TransportError.shutDown) }
    for transfer in transfers {
      stop(transfer, with: TransportError.shutDown)
    }
    for (easy, _) in pool { curl_easy_cleanup(easy) }
    pool = []
    curl_multi_cleanup(multi)
  }

  // MARK: Commands

  private func apply(_ command: Command) {
    switch command {
    case .start(let job):
      let deadline = job.options.timeouts.total.map { Monotonic.now() &+ Monotonic.nanoseconds($0) }
      let host = Admission<Pending>.Host(scheme: job.request.scheme, authority: job.request.authority)
      switch admission.arrive((job, deadline), id: job.id, host: host, deadline: deadline) {
      case .start(let ticket): begin(job, ticket: ticket, totalDeadline: deadline)
      case .wait: loop.noteWaiting(admission.waiting, arrival: true)
      }
    case .cancel(let id):
      if let transfer = running(id) {
        stop(transfer, with: TransportError.cancelled())
      } else if let pending = admission.cancel(id) {
        loop.noteWaiting(admission.waiting)
        pending.job.sink.fail(TransportError.cancelled())
      }
    case .resumeReceiving(let id):
      running(id)?.resumeReceiving()
    case .resumeSending(let id):
      running(id)?.resumeSending()
    case .run(let job):
      job.runSynchronously(on: loop.asUnownedTaskExecutor())
    }
  }

  /// Hands a transfer to libcurl; its total deadline counts from its arrival at the loop, waiting included.
  private func begin(_ job: Job, ticket: Admission<Pending>.Ticket, totalDeadline: UInt64?) {
    let transfer = Transfer(job: job, engine: self, ticket: ticket, totalDeadline: totalDeadline)
    transfer.slot = transfers.count
    transfers.append(transfer)
    transfer.begin()
  }

  /// Starts the waiting transfers there is room for, oldest first.
  private func admitWaiting() {
    guard admission.waiting > 0 else { return }
    while let (pending, ticket) = admission.admitNext() {
      begin(pending.job, ticket: ticket, totalDeadline: pending.deadline)
    }
    loop.noteWaiting(admission.waiting)
  }

  /// A response of the transfer holding `ticket` came over a protocol that multiplexes, or one that does not, unlike
  /// what the ticket says: its host's room changes from the next admission on.
  func learned(_ ticket: Admission<Pending>.Ticket, multiplexes: Bool) {
    admission.learned(ticket, multiplexes: multiplexes)
  }

  /// The running transfer with this id, if it is still running.
  private func running(_ id: UInt64) -> Transfer? {
    transfers.first { $0.id == id }
  }

  // MARK: Handles

  /// An easy handle, from the pool when one is free, and whether the options every transfer sets alike are set on it
  /// already (a pooled handle that was not reset).
  func takeHandle() -> (handle: UnsafeMutableRawPointer, primed: Bool)? {
    guard let taken = pool.popLast() ?? curl_easy_init().map({ ($0, false) }) else { return nil }
    loop.noteHandlesHeld(1)
    return taken
  }

  /// Adds a configured handle to the multi handle.
  func add(_ easy: UnsafeMutableRawPointer) -> CURLMcode {
    curl_multi_add_handle(multi, easy)
  }

  /// Takes a handle out of the multi handle; the transfer on it stops at once and its connection is released (closed
  /// when the transfer was unfinished, kept for reuse otherwise).
  func remove(_ easy: UnsafeMutableRawPointer) {
    curl_multi_remove_handle(multi, easy)
  }

  /// Forgets a finished transfer and keeps its handle for the next one; `reset` when the transfer left options on it
  /// that the next transfer does not set again.
  func retire(_ transfer: Transfer, handle: UnsafeMutableRawPointer?, reset: Bool) {
    let slot = transfer.slot
    if slot >= 0 && slot < transfers.count && transfers[slot] === transfer {
      let last = transfers.removeLast()
      if slot < transfers.count {
        transfers[slot] = last
        last.slot = slot
      }
      transfer.slot = -1
    }
    admission.ended(transfer.ticket)
    guard let handle else { return }
    loop.noteHandlesHeld(-1)
    if pool.count < configuration.maximumPooledHandles {
      if reset {
        curl_easy_reset(handle)
      } else {
        // The header list and the error buffer were the transfer's and are freed with it: the idle handle must not
        // point at them (the next transfer sets both again).
        CCurl_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, nil)
        CCurl_easy_setopt_pointer(handle, CURLOPT_ERRORBUFFER, nil)
      }
      pool.append((handle, !reset))
    } else {
      curl_easy_cleanup(handle)
    }
  }

  /// Stops a running transfer with an error (cancellation, a timeout, shutdown).
  func stop(_ transfer: Transfer, with error: TransportError) {
    transfer.abort(with: error)
  }

  /// Marks a transfer whose channel was written to in this round, for the flush at the end of the round.
  func markDirty(_ transfer: Transfer) {
    dirty.append(transfer)
  }

  // MARK: Round steps

  /// Handles the transfers libcurl finished; whether there were any.
  private func collectFinished() -> Bool {
    var queued: Int32 = 0
    while let message = curl_multi_info_read(multi, &queued) {
      if CCurl_msg_is_done(message) != 0, let easy = CCurl_msg_easy_handle(message) {
        done.append((easy, CCurl_msg_result(message)))
      }
    }
    guard !done.isEmpty else { return false }
    for (easy, result) in done {
      var context: UnsafeMutableRawPointer?
      CCurl_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &context)
      guard let context else { continue }
      let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
      transfer.completed(result)
    }
    done.removeAll(keepingCapacity: true)
    return true
  }

  private func flushDirty() {
    guard !dirty.isEmpty else { return }
    for transfer in dirty { transfer.flush() }
    dirty.removeAll(keepingCapacity: true)
  }

  /// Ends the transfers whose idle or total deadline has passed, waiting ones included; returns how long to poll.
  private func checkDeadlines() -> Int32 {
    var timeout = -1
    curl_multi_timeout(multi, &timeout)
    guard !transfers.isEmpty || admission.nextDeadline != nil else {
      return Int32(timeout < 0 ? 10_000 : min(timeout, 10_000))
    }
    let now = Monotonic.now()
    var next = UInt64.max
    if let waitingDeadline = admission.nextDeadline, now >= waitingDeadline {
      let timedOut = admission.expire(now: now)
      loop.noteWaiting(admission.waiting)
      for pending in timedOut {
        pending.job.sink.fail(Transfer.totalTimeoutError(options: pending.job.options, url: pending.job.url))
      }
    }
    if let waitingDeadline = admission.nextDeadline { next = waitingDeadline }
    for transfer in transfers {
      switch transfer.checkDeadline(now: now) {
      case .none: break
      case .at(let deadline): next = min(next, deadline)
      case .expired(let error): expired.append((transfer, error))
      }
    }
    for (transfer, error) in expired { stop(transfer, with: error) }
    if !expired.isEmpty {
      expired.removeAll(keepingCapacity: true)
      return 0
    }
    if next != .max {
      let ours = next > now ? Monotonic.milliseconds(next - now) : 0
      timeout = timeout < 0 ? ours : min(timeout, ours)
    }
    return Int32(timeout < 0 ? 10_000 : min(timeout, 10_000))
  }
}

/// `curl_global_init`, exactly once per process (libcurl 7.84 and later make it thread-safe; a lazy global makes it
/// happen once in any case). `curl_global_cleanup` is never called: other code in the process may use libcurl too.
enum CurlGlobal {
  static let initialized: Bool = curl_global_init(CCurl_GLOBAL_ALL) == CURLE_OK
}

extension CurlEngine {
  /// The open socket among ``sockets`` whose local and peer ports are these (a connection's, as libcurl reports
  /// them for the transfer using it, new or reused), or `nil`.
  func socket(localPort: Int, peerPort: Int) -> Int32? {
    var found: Int32?
    var gone: [Int32] = []
    for socket in sockets {
      guard let local = Self.port(of: socket, peer: false) else {
        gone.append(socket)
        continue
      }
      if local == localPort, Self.port(of: socket, peer: true) == peerPort {
        found = socket
        break
      }
    }
    for socket in gone { sockets.remove(socket) }
    return found
  }

  /// The local or peer port of a TCP socket over IPv4 or IPv6 (`sin_port` and `sin6_port` share their place).
  private static func port(of socket: Int32, peer: Bool) -> Int? {
    var address = sockaddr_storage()
    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
    let result = withUnsafeMutablePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
        peer ? getpeername(socket, address, &length) : getsockname(socket, address, &length)
      }
    }
    guard result == 0, address.ss_family == sa_family_t(AF_INET) || address.ss_family == sa_family_t(AF_INET6) else {
      return nil
    }
    return withUnsafePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
    }
  }
}
