// bench-client-floor: the least an async Swift client on libcurl does per request — a reference row for the
// sequential and concurrent GET workloads, not a contender.
//
//   bench-client-floor floor-curl|floor-curl-loop get-seq|get-concurrent --base URL [options as bench-client]
//
// It has CurlTransport's shape and nothing else: one thread runs a libcurl multi handle with reused easy handles,
// a caller awaits each response on an unsafe continuation (`floor-curl`: callers on the Swift pool, the loop woken
// for each request; `floor-curl-loop`: the loop thread is also the callers' task executor, as with
// `CurlTransport.taskExecutor`). No request or response types, no header callback or parsing (the status comes from
// `CURLINFO_RESPONSE_CODE`), no cancellation, timeouts, body limits or decoding, and libcurl's own default request
// headers, as in the C client. Like CurlTransport's loop, it spins (yielding the core) for up to 50 µs after a
// response for the caller's next request before it sleeps, which saves the wake-up of a caller that asks again at
// once. Whatever separates it from the C client is the price of the async hand-off on this
// machine; whatever separates CurlTransport from it is CurlTransport's own work.

import BenchSupport
import CCurlFloor
import Foundation
import Synchronization

benchMain { options in
  switch options.contender {
  case "floor-curl": FloorClient(options, onLoop: false)
  case "floor-curl-loop": FloorClient(options, onLoop: true)
  default: nil
  }
}

/// The client: builds the URL and awaits the loop's answer.
final class FloorClient: Client {
  private let loop = FloorLoop()
  private let base: String
  private let onLoop: Bool

  init(_ options: Options, onLoop: Bool) {
    base = options.base
    self.onLoop = onLoop
  }

  var taskExecutor: (any TaskExecutor)? { onLoop ? loop : nil }

  func get(_ path: String) async throws -> Int {
    let url = base + path
    let (status, bytes) = await withUnsafeContinuation { continuation in
      loop.submit(FloorRequest(url: url, continuation: continuation))
    }
    guard status == 200 else { throw BenchError.status(status) }
    return bytes
  }

  func shutdown() async {
    loop.stop()
  }
}

/// One GET waiting for the loop: its URL and the caller's continuation, resumed with (status, body bytes).
struct FloorRequest: Sendable {
  let url: String
  let continuation: UnsafeContinuation<(Int, Int), Never>
}

/// The loop thread: a libcurl multi handle, reused easy handles, and an inbox of requests and (for the `-loop`
/// contender) jobs, which other threads fill and the loop empties. The loop sleeps in `curl_multi_poll` only with an
/// empty inbox, and whoever adds to the inbox of a sleeping loop wakes it.
final class FloorLoop: TaskExecutor, @unchecked Sendable {
  private struct Inbox {
    var requests: [FloorRequest] = []
    var jobs: [UnownedJob] = []
    var sleeping = false
    var stopping = false
  }

  private let inbox = Mutex(Inbox())
  /// Set with every addition to the inbox, cleared when the loop empties it: what the loop watches while it spins.
  private let hasWork = Atomic<Bool>(false)
  private let multi: UnsafeMutableRawPointer
  // The loop thread's own state.
  private var idle: [FloorTransfer] = []
  private var all: [FloorTransfer] = []

  init() {
    curl_global_init(Int(CURL_GLOBAL_DEFAULT))
    multi = curl_multi_init()
    let thread = Thread { [self] in run() }
    thread.name = "floor-curl-loop"
    thread.start()
  }

  func submit(_ request: FloorRequest) {
    add { $0.requests.append(request) }
  }

  func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    add { $0.jobs.append(job) }
  }

  /// Adds to the inbox under its lock, then wakes the loop if it sleeps.
  private func add(_ body: (inout Inbox) -> Void) {
    let wake = inbox.withLock { inbox in
      body(&inbox)
      defer { inbox.sleeping = false }
      return inbox.sleeping
    }
    hasWork.store(true, ordering: .releasing)
    if wake { curl_multi_wakeup(multi) }
  }

  func stop() {
    inbox.withLock { $0.stopping = true }
    curl_multi_wakeup(multi)
  }

  private func run() {
    var jobs: [UnownedJob] = []
    var requests: [FloorRequest] = []
    jobs.reserveCapacity(256)
    requests.reserveCapacity(256)
    var running: Int32 = 0
    var left: Int32 = 0
    while true {
      // Run the jobs and start the requests that came in, until none are left.
      while true {
        let stopping = inbox.withLock { inbox in
          swap(&inbox.jobs, &jobs)
          swap(&inbox.requests, &requests)
          hasWork.store(false, ordering: .relaxed)
          return inbox.stopping
        }
        if stopping { return }
        if jobs.isEmpty && requests.isEmpty { break }
        for job in jobs {
          job.runSynchronously(on: asUnownedTaskExecutor())
        }
        jobs.removeAll(keepingCapacity: true)
        for request in requests {
          start(request)
        }
        requests.removeAll(keepingCapacity: true)
      }
      curl_multi_perform(multi, &running)
      var finishedAny = false
      while let message = curl_multi_info_read(multi, &left) {
        guard CCurl_msg_is_done(message) != 0, let easy = CCurl_msg_easy_handle(message) else { continue }
        finish(easy, ok: CCurl_msg_result(message) == CURLE_OK)
        finishedAny = true
      }
      if finishedAny && idle.count == all.count && spinForWork() { continue }
      let sleep = inbox.withLock { inbox in
        guard inbox.jobs.isEmpty && inbox.requests.isEmpty && !inbox.stopping else { return false }
        inbox.sleeping = true
        return true
      }
      if sleep {
        curl_multi_poll(multi, nil, 0, 1000, nil)
        inbox.withLock { $0.sleeping = false }
      }
    }
  }

  /// Waits up to 50 µs, yielding the core, for something to arrive in the inbox; whether it did.
  private func spinForWork() -> Bool {
    let until = ContinuousClock.now.advanced(by: .microseconds(50))
    while !hasWork.load(ordering: .acquiring) {
      sched_yield()
      if ContinuousClock.now >= until { return hasWork.load(ordering: .acquiring) }
    }
    return true
  }

  private func start(_ request: FloorRequest) {
    let transfer: FloorTransfer
    if let reused = idle.popLast() {
      transfer = reused
    } else {
      transfer = FloorTransfer()
      all.append(transfer)
    }
    if transfer.url != request.url {
      transfer.url = request.url
      _ = request.url.withCString { CCurl_easy_setopt_string(transfer.easy, CURLOPT_URL, $0) }  // libcurl copies it
    }
    transfer.bytes = 0
    transfer.continuation = request.continuation
    curl_multi_add_handle(multi, transfer.easy)
  }

  private func finish(_ easy: UnsafeMutableRawPointer, ok: Bool) {
    var context: UnsafeMutableRawPointer?
    CCurl_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &context)
    let transfer = Unmanaged<FloorTransfer>.fromOpaque(context!).takeUnretainedValue()
    var status = 0
    if ok { CCurl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status) }
    curl_multi_remove_handle(multi, easy)
    idle.append(transfer)
    let continuation = transfer.continuation
    transfer.continuation = nil
    continuation?.resume(returning: (status, transfer.bytes))
  }
}

/// One easy handle, its options set once (as the C client's), and the transfer it is running.
final class FloorTransfer {
  let easy: UnsafeMutableRawPointer
  var url = ""
  var bytes = 0
  var continuation: UnsafeContinuation<(Int, Int), Never>?

  init() {
    easy = curl_easy_init()
    let this = Unmanaged.passUnretained(self).toOpaque()
    CCurl_easy_setopt_long(easy, CURLOPT_BUFFERSIZE, 256 << 10)
    CCurl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
    CCurl_easy_setopt_pointer(easy, CURLOPT_PRIVATE, this)
    CCurl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, this)
    CCurl_easy_setopt_write_function(easy, CURLOPT_WRITEFUNCTION) { _, size, count, user in
      Unmanaged<FloorTransfer>.fromOpaque(user!).takeUnretainedValue().bytes += size * count
      return size * count
    }
  }
}
