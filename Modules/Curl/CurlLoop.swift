import CCurl
@_spi(Malibu) import MalibuCore
import MalibuTransport
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The multi handle's address, shared so that other threads can wake the loop.
///
/// `@unchecked Sendable` because a raw pointer is not `Sendable`. Safe: other threads use it only for
/// `curl_multi_wakeup`, which libcurl documents as callable from any thread, and only under the inbox lock while
/// ``CurlLoop`` shows the handle as alive; the loop thread clears it under the same lock before cleaning it up.
struct MultiHandleReference: @unchecked Sendable {
  let pointer: UnsafeMutableRawPointer
}

/// The part of the transport that callers share with the loop thread: a lock-protected command queue, the wake-up,
/// and the thread's life cycle. Everything libcurl owns lives in ``CurlEngine``, on the loop thread only.
final class CurlLoop: TaskExecutor {
  /// Where the loop is in its life.
  enum Phase: Sendable {
    /// No thread yet: it starts with the first transfer.
    case idle
    /// Running and accepting transfers.
    case running
    /// The transport is gone: no new transfers; the thread ends once the last transfer has.
    case draining
    /// ``CurlTransport/shutdown()``: every transfer is cancelled and the thread ends.
    case stopping
    /// The thread has ended (or never started and never will).
    case stopped
  }

  private struct Inbox: Sendable {
    var phase = Phase.idle
    var commands: [Command] = []
    var multi: MultiHandleReference?
    /// The loop is in (or about to enter) `curl_multi_poll` and must be woken for a new command.
    var sleeping = false
    var thread: LoopThread?
    var threadReleased = false
    /// Set by a graceful shutdown (``drain(refusing:)``): what a new transfer fails with from then on.
    var refusal: TransportError?
    /// The thread has freed every handle and ended its work (or never started).
    var threadEnded = false
    /// Callers of ``waitUntilStopped()``, resumed once the thread has ended its work.
    var stopWaiters: [UnsafeContinuation<Void, Never>] = []
  }

  let configuration: CurlTransport.Configuration
  private let inbox = Locked(Inbox())
  private let ids = Atomic<UInt64>(0)
  /// Whether commands wait; read by the loop without the lock while it spins before sleeping.
  private let hasCommands = Atomic<Bool>(false)
  /// Callers between deciding to wake the loop and having called `curl_multi_wakeup`; the multi handle is not cleaned
  /// up before this is back to zero.
  private let wakers = Atomic<Int>(0)
  /// Easy handles held by transfers (taken from the pool or created, not yet given back), as the loop last counted.
  private let handlesHeldCount = Atomic<Int>(0)
  /// Transfers waiting for room (``Admission``), as the loop last counted.
  private let waitingCount = Atomic<Int>(0)
  /// Transfers that had to wait for room, since the loop started.
  private let waitedCount = Atomic<Int>(0)

  init(configuration: CurlTransport.Configuration) {
    self.configuration = configuration
  }

  /// Easy handles held by transfers now: a waiting transfer holds none.
  var handlesHeld: Int { handlesHeldCount.load(ordering: .relaxed) }

  /// Transfers waiting for room now.
  var transfersWaiting: Int { waitingCount.load(ordering: .relaxed) }

  /// Whether this loop's thread was started and has not ended its work yet.
  var threadRunning: Bool { inbox.withLock { $0.thread != nil && !$0.threadEnded } }

  /// Transfers that had to wait for room, in all.
  var transfersWaited: Int { waitedCount.load(ordering: .relaxed) }

  /// On the loop thread: a transfer took (`1`) or gave back (`-1`) an easy handle.
  func noteHandlesHeld(_ change: Int) {
    handlesHeldCount.add(change, ordering: .relaxed)
  }

  /// On the loop thread: how many transfers wait for room; `arrival` when a new one just joined them.
  func noteWaiting(_ count: Int, arrival: Bool = false) {
    if arrival { waitedCount.add(1, ordering: .relaxed) }
    waitingCount.store(count, ordering: .relaxed)
  }

  /// A new transfer id.
  func nextID() -> UInt64 {
    ids.add(1, ordering: .relaxed).newValue
  }

  // MARK: Callers

  /// Queues a task's job to run on the loop thread, starting the thread on first use; the job runs on the global
  /// concurrent executor instead once the loop has stopped or is stopping. Called on the loop thread itself (a
  /// transfer resuming the task that waits on it), it wakes nothing: the loop runs the job in its next round.
  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    switch inbox.withLock({ queue(.run(job), in: &$0, whileDraining: true) }) {
    case .queued(let multi): if let multi { wake(multi) }
    case .noThread, .closed: globalConcurrentExecutor.enqueue(ExecutorJob(job))
    }
  }

  /// Hands a new transfer to the loop, starting the thread on first use. Fails the job at once when the calling task
  /// is already cancelled (checked under the lock, so a cancellation command can never overtake the start) or the
  /// transport was shut down.
  func start(_ job: Job) {
    let admission = inbox.withLock { inbox in
      Task.isCancelled ? nil : queue(.start(job), in: &inbox, whileDraining: false)
    }
    switch admission {
    case .queued(let multi): if let multi { wake(multi) }
    case .noThread: job.sink.fail(TransportError(code: .other, message: "could not start the libcurl loop thread"))
    case .closed: job.sink.fail(inbox.withLock { $0.refusal } ?? TransportError.shutDown)
    case nil: job.sink.fail(TransportError.cancelled())
    }
  }

  /// What ``queue(_:in:whileDraining:)`` did with a command.
  private enum Admission {
    /// Queued; the multi handle to wake (outside the lock) when the loop sleeps.
    case queued(MultiHandleReference?)
    /// The loop thread could not be started: the loop is stopped for good.
    case noThread
    /// The loop does not take it (draining, for a new transfer; stopping or stopped).
    case closed
  }

  /// Under the lock: queues a command, starting the thread when there is none yet. A new transfer is refused once the
  /// transport is gone (draining); a task's job is still run while the loop finishes its transfers.
  private func queue(_ command: Command, in inbox: inout Inbox, whileDraining: Bool) -> Admission {
    switch inbox.phase {
    case .idle:
      guard spawnThread(&inbox) else {
        inbox.phase = .stopped
        return .noThread
      }
      inbox.commands.append(command)
      return .queued(nil)
    case .running:
      inbox.commands.append(command)
      return .queued(wakeIfSleeping(&inbox))
    case .draining where whileDraining:
      inbox.commands.append(command)
      return .queued(wakeIfSleeping(&inbox))
    case .draining, .stopping, .stopped:
      return .closed
    }
  }

  /// Sends a command about a running transfer; ignored once the loop has stopped.
  func submit(_ command: Command) {
    let multi: MultiHandleReference? = inbox.withLock { inbox in
      guard inbox.phase == .running || inbox.phase == .draining else { return nil }
      inbox.commands.append(command)
      return wakeIfSleeping(&inbox)
    }
    if let multi { wake(multi) }
  }

  /// Cancels every transfer, stops the thread and waits for it (unless called on the loop thread itself).
  func shutdown() {
    let (multi, thread): (MultiHandleReference?, LoopThread?) = inbox.withLock { inbox in
      switch inbox.phase {
      case .idle:
        inbox.phase = .stopped
        return (nil, nil)
      case .running, .draining:
        inbox.phase = .stopping
        return (wakeIfSleeping(&inbox), releaseThread(&inbox))
      case .stopping, .stopped:
        return (nil, releaseThread(&inbox))
      }
    }
    if let multi { wake(multi) }
    guard let thread = thread?.handle else { return }
    if pthread_equal(thread, pthread_self()) != 0 {
      pthread_detach(thread)
    } else {
      pthread_join(thread, nil)
    }
  }

  /// Begins a graceful shutdown: from now on a new transfer fails with `refusal`; the running ones go on, and the
  /// thread ends once the last one has (as after ``release()``, but the thread is still joined by ``shutdown()``).
  /// - Returns: Whether a thread runs (or is ending) that ``waitUntilStopped()`` can wait for.
  func drain(refusing refusal: TransportError) -> Bool {
    let (multi, running): (MultiHandleReference?, Bool) = inbox.withLock { inbox in
      if inbox.refusal == nil { inbox.refusal = refusal }
      switch inbox.phase {
      case .idle:
        inbox.phase = .stopped
        return (nil, false)
      case .running:
        inbox.phase = .draining
        return (wakeIfSleeping(&inbox), true)
      case .draining, .stopping:
        return (nil, true)
      case .stopped:
        return (nil, inbox.thread != nil && !inbox.threadEnded)
      }
    }
    if let multi { wake(multi) }
    return running
  }

  /// Returns once the loop thread has ended its work and freed every libcurl handle (at once when there is none).
  func waitUntilStopped() async {
    await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
      let ended = inbox.withLock { inbox in
        guard inbox.thread != nil, !inbox.threadEnded else { return true }
        inbox.stopWaiters.append(continuation)
        return false
      }
      if ended { continuation.resume() }
    }
  }

  /// On the loop thread, as its last step: marks its work ended and wakes the callers of ``waitUntilStopped()``.
  private func endThread() {
    let waiters = inbox.withLock { inbox in
      inbox.threadEnded = true
      defer { inbox.stopWaiters = [] }
      return inbox.stopWaiters
    }
    for waiter in waiters { waiter.resume() }
  }

  /// The transport is gone: finish the running transfers, then end the thread without anyone waiting for it.
  func release() {
    let multi: MultiHandleReference? = inbox.withLock { inbox in
      var multi: MultiHandleReference?
      switch inbox.phase {
      case .idle:
        inbox.phase = .stopped
      case .running:
        inbox.phase = .draining
        multi = wakeIfSleeping(&inbox)
      case .draining, .stopping, .stopped:
        break
      }
      if let thread = releaseThread(&inbox) { pthread_detach(thread.handle) }
      return multi
    }
    if let multi { wake(multi) }
  }

  private func releaseThread(_ inbox: inout Inbox) -> LoopThread? {
    guard !inbox.threadReleased, let thread = inbox.thread else { return nil }
    inbox.threadReleased = true
    return thread
  }

  /// Under the lock, after adding a command or changing the phase: the multi handle to wake, when the loop sleeps.
  /// Only the first caller after the loop went to sleep wakes it; the wake-up itself happens outside the lock.
  private func wakeIfSleeping(_ inbox: inout Inbox) -> MultiHandleReference? {
    hasCommands.store(true, ordering: .releasing)
    guard inbox.sleeping, let multi = inbox.multi else { return nil }
    inbox.sleeping = false
    wakers.add(1, ordering: .acquiring)
    return multi
  }

  private func wake(_ multi: MultiHandleReference) {
    curl_multi_wakeup(multi.pointer)
    wakers.subtract(1, ordering: .releasing)
  }

  private func spawnThread(_ inbox: inout Inbox) -> Bool {
    let context = Unmanaged.passRetained(self).toOpaque()
    // glibc's `pthread_t` is an integer that `pthread_create` fills in; Darwin's and musl's is a pointer, passed as
    // an optional. The start routine's argument is optional on Linux only: `startLoopThread` takes either.
    #if canImport(Glibc)
    var thread = pthread_t()
    #else
    var thread: pthread_t?
    #endif
    let result = pthread_create(&thread, nil, { startLoopThread($0) }, context)
    #if canImport(Glibc)
    let handle: pthread_t? = thread
    #else
    let handle = thread
    #endif
    guard result == 0, let handle else {
      Unmanaged<CurlLoop>.fromOpaque(context).release()
      return false
    }
    inbox.thread = LoopThread(handle: handle)
    inbox.phase = .running
    return true
  }

  // MARK: Loop thread

  fileprivate func runThread() {
    CCurl_set_thread_name("malibu-curl")
    guard let engine = CurlEngine(loop: self) else {
      let error = TransportError(code: .other, message: "libcurl could not create a multi handle")
      for command in retire() { command.abandon(with: error) }
      endThread()
      return
    }
    inbox.withLock { inbox in
      inbox.multi = MultiHandleReference(pointer: engine.multi)
    }
    engine.run()
    let leftovers = retire()
    while wakers.load(ordering: .acquiring) > 0 { sched_yield() }
    engine.close(leftovers: leftovers)
    endThread()
  }

  /// Takes the waiting commands (swapping in `buffer`, which must be empty, so no allocation happens per round) and
  /// tells the loop its phase.
  func take(into buffer: inout [Command]) -> Phase {
    inbox.withLock { inbox in
      swap(&buffer, &inbox.commands)
      inbox.sleeping = false
      hasCommands.store(false, ordering: .relaxed)
      return inbox.phase
    }
  }

  /// Whether commands wait (a hint, read without the lock).
  var commandsWaiting: Bool {
    hasCommands.load(ordering: .acquiring)
  }

  /// Marks the loop as going to sleep, unless commands wait or the phase changed; from then on the next command wakes
  /// it with `curl_multi_wakeup`.
  func prepareToSleep(in phase: Phase) -> Bool {
    inbox.withLock { inbox in
      guard inbox.commands.isEmpty, inbox.phase == phase else { return false }
      inbox.sleeping = true
      return true
    }
  }

  /// Marks the loop stopped, forgets the multi handle (no wake-up may reach it any more) and returns the commands
  /// that came too late.
  private func retire() -> [Command] {
    inbox.withLock { inbox in
      inbox.phase = .stopped
      inbox.multi = nil
      defer { inbox.commands = [] }
      return inbox.commands
    }
  }
}

/// The loop's thread, as `shutdown()` and `release()` take it out of the inbox. `@unchecked Sendable`: Darwin's and
/// musl's `pthread_t` is a pointer (not `Sendable`), but it only names the thread, and `releaseThread` hands it out
/// once, to be joined or detached by that one caller.
private struct LoopThread: @unchecked Sendable {
  let handle: pthread_t
}

/// The loop thread's start routine: takes the reference `spawnThread` retained and runs the loop.
private func startLoopThread(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
  Unmanaged<CurlLoop>.fromOpaque(context!).takeRetainedValue().runThread()
  return nil
}
