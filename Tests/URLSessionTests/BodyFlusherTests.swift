import Foundation
@_spi(Malibu) import MalibuCore
import Testing

@testable import MalibuURLSession

@Suite("BodyFlusher: when a body's reader is woken")
struct BodyFlusherTests {
  /// A channel that counts its flushes; `waking` says whether a flush would wake a reader.
  final class Channel: Flushable {
    private let counts = Locked((flushes: 0, declined: 0))
    let waking: Bool

    init(waking: Bool) {
      self.waking = waking
    }

    var flushes: Int { counts.withLock { $0.flushes } }
    var declined: Int { counts.withLock { $0.declined } }

    func flush() {
      counts.withLock { $0.flushes += 1 }
    }

    func flushUnlessWaking() -> Bool {
      counts.withLock { counts in
        if waking {
          counts.declined += 1
          return false
        }
        counts.flushes += 1
        return true
      }
    }
  }

  /// A scheduler run by hand: the test says whether events wait, and runs the scheduled sweeps.
  final class Clock: Sendable {
    private struct State {
      var eventsWaiting = false
      var afterEvents: [@Sendable () -> Void] = []
      var afterDelay: [@Sendable () -> Void] = []
    }

    private let state = Locked(State())

    var eventsWaiting: Bool {
      get { state.withLock { $0.eventsWaiting } }
      set { state.withLock { $0.eventsWaiting = newValue } }
    }
    var scheduledAfterEvents: Int { state.withLock { $0.afterEvents.count } }
    var scheduledAfterDelay: Int { state.withLock { $0.afterDelay.count } }

    var scheduler: BodyFlusher.Scheduler {
      BodyFlusher.Scheduler(
        eventsWaiting: { [self] in eventsWaiting },
        afterEvents: { [self] sweep in state.withLock { $0.afterEvents.append(sweep) } },
        afterDelay: { [self] sweep in state.withLock { $0.afterDelay.append(sweep) } }
      )
    }

    /// Runs every scheduled sweep, as the queue or the timer would.
    func runSweeps() {
      let sweeps = state.withLock { state in
        defer {
          state.afterEvents.removeAll()
          state.afterDelay.removeAll()
        }
        return state.afterEvents + state.afterDelay
      }
      for sweep in sweeps { sweep() }
    }
  }

  private static let full = BodyFlusher.fullRead
  private static let short = 100

  @Test func aShortReadWithNothingQueuedIsFlushedAtOnce() {
    let clock = Clock()
    let flusher = BodyFlusher(clock.scheduler)
    let channel = Channel(waking: true)
    flusher.wrote(Self.short, to: channel)
    #expect(channel.flushes == 1)
    #expect(clock.scheduledAfterEvents + clock.scheduledAfterDelay == 0)
  }

  #if canImport(FoundationNetworking)
  @Test func fullReadsThatWouldWakeTheReaderAreFlushedOnceByOneDelayedSweep() {
    let clock = Clock()
    let flusher = BodyFlusher(clock.scheduler)
    let channel = Channel(waking: true)
    flusher.wrote(Self.full, to: channel)
    flusher.wrote(Self.full, to: channel)
    flusher.wrote(Self.full, to: channel)
    #expect(channel.flushes == 0)
    #expect(channel.declined == 3)
    #expect(clock.scheduledAfterDelay == 1)
    #expect(clock.scheduledAfterEvents == 0)
    clock.runSweeps()
    #expect(channel.flushes == 1)
    // The sweep done, the next full read schedules a new one.
    flusher.wrote(Self.full, to: channel)
    #expect(clock.scheduledAfterDelay == 1)
    clock.runSweeps()
    #expect(channel.flushes == 2)
  }

  @Test func aReadWithEventsWaitingIsSweptAfterThem() {
    let clock = Clock()
    let flusher = BodyFlusher(clock.scheduler)
    let channel = Channel(waking: true)
    clock.eventsWaiting = true
    flusher.wrote(Self.short, to: channel)
    #expect(channel.flushes == 0)
    #expect(clock.scheduledAfterEvents == 1)
    #expect(clock.scheduledAfterDelay == 0)
    clock.runSweeps()
    #expect(channel.flushes == 1)
  }

  @Test func aFlushThatWakesNobodyIsDoneAtOnceWithoutASweep() {
    let clock = Clock()
    let flusher = BodyFlusher(clock.scheduler)
    let busy = Channel(waking: false)
    flusher.wrote(Self.full, to: busy)
    clock.eventsWaiting = true
    flusher.wrote(Self.short, to: busy)
    #expect(busy.flushes == 2)
    #expect(clock.scheduledAfterEvents + clock.scheduledAfterDelay == 0)
  }

  @Test func aShortReadAlsoFlushesTheChannelsWaitingForASweep() {
    let clock = Clock()
    let flusher = BodyFlusher(clock.scheduler)
    let first = Channel(waking: true)
    let second = Channel(waking: true)
    let last = Channel(waking: true)
    flusher.wrote(Self.full, to: first)
    flusher.wrote(Self.full, to: second)
    flusher.wrote(Self.full, to: first)
    #expect(first.flushes + second.flushes == 0)
    #expect(clock.scheduledAfterDelay == 1)
    flusher.wrote(Self.short, to: last)
    #expect([first, second, last].map(\.flushes) == [1, 1, 1])
    // The sweep still scheduled finds nothing left to flush.
    clock.runSweeps()
    #expect([first, second, last].map(\.flushes) == [1, 1, 1])
  }

  @Test func oneSweepFlushesEveryNotedChannelOnce() {
    let clock = Clock()
    let flusher = BodyFlusher(clock.scheduler)
    let channels = (0..<4).map { _ in Channel(waking: true) }
    clock.eventsWaiting = true
    for _ in 0..<3 {
      for channel in channels { flusher.wrote(Self.full, to: channel) }
    }
    #expect(clock.scheduledAfterEvents == 1)
    #expect(channels.allSatisfy { $0.flushes == 0 })
    clock.runSweeps()
    #expect(channels.allSatisfy { $0.flushes == 1 })
  }
  #else
  @Test func everyReadIsFlushedAtOnceWhereReadsAreLarge() {
    let clock = Clock()
    let flusher = BodyFlusher(clock.scheduler)
    let channel = Channel(waking: true)
    flusher.wrote(1 << 20, to: channel)
    #expect(channel.flushes == 1)
    #expect(clock.scheduledAfterEvents + clock.scheduledAfterDelay == 0)
  }
  #endif
}
