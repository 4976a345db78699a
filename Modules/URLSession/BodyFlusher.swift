import Dispatch
import Foundation
@_spi(Malibu) import MalibuCore
import MalibuTransport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What ``BodyFlusher`` flushes: a response body's channel (a stand-in in tests).
protocol Flushable: AnyObject, Sendable {
  /// Hands the bytes written since the last flush to the reader, waking it if it waits.
  func flush()
  /// Flushes when that wakes no reader and answers `true`; otherwise does nothing and answers `false`.
  func flushUnlessWaking() -> Bool
}

extension BodyChannel: Flushable {}

/// Decides when the reader of a body arriving through URLSession is woken.
///
/// FoundationNetworking queues a delegate event for every network read, 16 KiB at most (libcurl's buffer), and
/// waking the reading task for each one cost a fast download about a fifth of its speed. So a read that wakes a
/// waiting reader is flushed at once only when it is the last word for now: when it is short (the socket had no more)
/// and no other event waits in the delegate queue. Otherwise its channel is noted, and one sweep flushes every noted
/// channel: an operation behind the events already queued, or, when nothing is queued, a timer ``delay`` later. A
/// reader therefore waits at most for the queue to run what was in it, or ``delay``, beyond the bytes' arrival. A
/// flush that wakes nobody (the reader is busy, or collects the whole body) is always done at once. On Apple platforms
/// (``fullRead`` is never reached) every read is flushed at once.
final class BodyFlusher: Sendable {
  /// How the flusher looks at the delegate queue and schedules a sweep (replaced in tests).
  struct Scheduler: Sendable {
    /// Whether delegate events wait behind the one running.
    var eventsWaiting: @Sendable () -> Bool
    /// Runs the sweep after the events waiting in the delegate queue.
    var afterEvents: @Sendable (@escaping @Sendable () -> Void) -> Void
    /// Runs the sweep after ``BodyFlusher/delay``.
    var afterDelay: @Sendable (@escaping @Sendable () -> Void) -> Void

    /// The scheduler of a transport's delegate queue.
    static func delegateQueue(_ queue: OperationQueue) -> Scheduler {
      Scheduler(
        eventsWaiting: {
          #if canImport(FoundationNetworking)
          // FoundationNetworking counts the running operation and the waiting ones.
          queue.operationCount > 1
          #else
          false  // Not used there (`fullRead` is never reached), and deprecated.
          #endif
        },
        afterEvents: { sweep in queue.addOperation(sweep) },
        afterDelay: { sweep in DispatchQueue.global().asyncAfter(deadline: .now() + delay, execute: sweep) }
      )
    }
  }

  private struct State {
    /// Channels written to and not flushed since.
    var noted: [any Flushable] = []
    /// Whether a sweep is scheduled.
    var sweepScheduled = false
  }

  /// The size of a read that filled the reading buffer, so that more bytes are probably waiting.
  #if canImport(FoundationNetworking)
  static let fullRead = 16 << 10
  #else
  static let fullRead = Int.max
  #endif

  /// The longest a full read waits for its sweep when no other event is queued.
  static let delay = DispatchTimeInterval.milliseconds(1)

  private let scheduler: Scheduler
  private let state = Locked(State())

  init(_ scheduler: Scheduler) {
    self.scheduler = scheduler
  }

  /// `channel` received `count` bytes in a delegate event (the caller runs in the delegate queue): flushes it now, or
  /// notes it for a sweep.
  func wrote(_ count: Int, to channel: any Flushable) {
    // A full read is never the last word, whatever waits in the queue: the queue is looked at (it costs a walk of its
    // operations) only for a short read, or to choose how to schedule a sweep.
    let full = count >= Self.fullRead
    guard full || scheduler.eventsWaiting() else {
      // The last word for now: this channel, and whatever waits for a sweep, goes to the readers at once (a
      // scheduled sweep then finds nothing, or what was noted after this).
      flushNoted(endingSweep: false)
      channel.flush()
      return
    }
    // A flush that wakes nobody (the reader is busy, or collects the whole body) costs nothing worth saving.
    if channel.flushUnlessWaking() { return }
    let schedule = state.withLock { state -> Bool in
      if !state.noted.contains(where: { $0 === channel }) { state.noted.append(channel) }
      defer { state.sweepScheduled = true }
      return !state.sweepScheduled
    }
    guard schedule else { return }
    let sweep: @Sendable () -> Void = { [self] in flushNoted(endingSweep: true) }
    if !full || scheduler.eventsWaiting() { scheduler.afterEvents(sweep) } else { scheduler.afterDelay(sweep) }
  }

  /// Flushes every noted channel, outside the lock (a flush resumes its reader); a sweep also lets the next full read
  /// schedule another.
  private func flushNoted(endingSweep: Bool) {
    let noted = state.withLock { state in
      defer {
        state.noted.removeAll(keepingCapacity: true)
        if endingSweep { state.sweepScheduled = false }
      }
      return state.noted
    }
    for channel in noted { channel.flush() }
  }
}
