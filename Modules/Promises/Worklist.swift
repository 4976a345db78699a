/// A first-in, first-out list of pending callback invocations, drained by the public entry point that started them.
///
/// Settling a promise does not call its observers directly: it appends them here. The public call that caused the
/// settlement (``Promise/resolve(_:)``, ``Promise/cancel()``, adding an observer to a settled promise, ...) then
/// drains the list in a loop. A derived promise settled by an observer appends its own observers to the same list,
/// so a chain of any length is walked iteratively instead of recursing once per link.
///
/// The list is a local value passed `inout`; it never crosses threads and is never shared.
@usableFromInline struct Worklist {
  /// One unit of work; it may append further work to the list it is given.
  @usableFromInline typealias Job = (inout Worklist) -> Void

  /// The one pending job while ``queue`` is empty: a chain settles one promise after another, so most drains never
  /// hold two jobs at once and need no array.
  @usableFromInline var next: Job?
  /// The pending jobs, oldest first, once more than one is waiting.
  @usableFromInline var queue: [Job] = []

  @inlinable init() {}

  /// Appends `job` to the end of the list.
  @inlinable mutating func append(_ job: @escaping Job) {
    if next == nil && queue.isEmpty {
      next = job
      return
    }
    if let waiting = next {
      next = nil
      queue.append(waiting)
    }
    queue.append(job)
  }

  /// Runs every job, including the ones appended while draining, in first-in, first-out order.
  @inlinable mutating func drain() {
    var index = 0
    while true {
      if let job = next {
        next = nil
        job(&self)
      } else if index < queue.count {
        let job = queue[index]
        index += 1
        job(&self)
        if index >= 1024 && index * 2 >= queue.count {
          // Drop the jobs already run so a very long chain does not keep every closure alive.
          queue.removeFirst(index)
          index = 0
        }
      } else {
        break
      }
    }
    queue.removeAll()
  }
}

/// Not Sendable: a worklist belongs to the one call that drains it, and its jobs are not `@Sendable`.
@available(*, unavailable)
extension Worklist: Sendable {}
