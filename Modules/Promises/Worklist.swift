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

  @usableFromInline var jobs: [Job] = []

  @inlinable init() {}

  /// Appends `job` to the end of the list.
  @inlinable mutating func append(_ job: @escaping Job) {
    jobs.append(job)
  }

  /// Runs every job, including the ones appended while draining, in first-in, first-out order.
  @inlinable mutating func drain() {
    var index = 0
    while index < jobs.count {
      let job = jobs[index]
      index += 1
      job(&self)
      if index >= 1024 && index * 2 >= jobs.count {
        // Drop the jobs already run so a very long chain does not keep every closure alive.
        jobs.removeFirst(index)
        index = 0
      }
    }
    jobs.removeAll()
  }
}
