import Foundation
import Synchronization

/// glibc's `malloc_trim(0)`: returns the freed pages the allocator keeps to the system. Looked up at run time (the
/// Glibc module does not export it); nothing where it is missing.
func trimMalloc() {
  guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
  _ = unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)(0)
}

/// What the process holds at one moment: open descriptors, threads, resident memory.
struct ProcessSample: Sendable {
  var descriptors = 0
  var threads = 0
  /// VmRSS, in MiB.
  var rss = 0.0

  static func now() -> ProcessSample {
    var sample = ProcessSample()
    if let directory = opendir("/proc/self/fd") {
      while let entry = readdir(directory) {
        if entry.pointee.d_name.0 != UInt8(ascii: ".") { sample.descriptors += 1 }
      }
      closedir(directory)
      sample.descriptors -= 1  // the directory's own descriptor
    }
    if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) {
      for line in status.split(separator: "\n") {
        let value = line.split(whereSeparator: \.isWhitespace).dropFirst().first.flatMap { Double($0) }
        if line.hasPrefix("Threads:") { sample.threads = Int(value ?? 0) }
        if line.hasPrefix("VmRSS:") { sample.rss = (value ?? 0) / 1024 }
      }
    }
    return sample
  }

  mutating func raise(to other: ProcessSample) {
    descriptors = max(descriptors, other.descriptors)
    threads = max(threads, other.threads)
    rss = max(rss, other.rss)
  }
}

/// Samples the process every 5 ms on a thread of its own and keeps the peaks, until ``stop()``.
final class PeakSampler: Sendable {
  private let peak = Mutex(ProcessSample())
  private let running = Atomic(true)
  private let done = DispatchSemaphore(value: 0)

  init() {
    let thread = Thread { [self] in
      while running.load(ordering: .relaxed) {
        let sample = ProcessSample.now()
        peak.withLock { $0.raise(to: sample) }
        usleep(5_000)
      }
      done.signal()
    }
    thread.start()
  }

  /// Stops sampling and returns the peaks.
  func stop() -> ProcessSample {
    running.store(false, ordering: .relaxed)
    done.wait()
    return peak.withLock { $0 }
  }
}

extension Workloads {
  /// `fan-out`: `requests` requests of the plan started at once by `concurrency` tasks (1,000 in `make bench`) over
  /// the client's bounded pool (`--pool` connections). Reports the time to drain them all (the rate is requests over
  /// that time), and the descriptors, threads and resident memory before (client made, one warm-up request), at peak
  /// (sampled every 5 ms), and one second after the last response with the client still alive; the RSS once more after
  /// `malloc_trim(0)`.
  static func fanOutDrain(_ client: any Client, _ options: Options, _ report: inout Report) async throws {
    guard let path = options.plan else { throw BenchError("--plan is required") }
    let plan = try ApiCall.plan(path)
    _ = try await client.api(plan[0])
    let before = ProcessSample.now()
    let sampler = PeakSampler()
    let next = Counter()
    let start = ContinuousClock.now
    let (bytes, errors, firstError) = await withTaskGroup(of: (Int, Int, String?).self) { group in
      for _ in 0..<options.concurrency {
        group.addTask {
          var bytes = 0
          var errors = 0
          var firstError: String?
          while true {
            let number = next.take()
            guard number < options.requests else { break }
            let call = plan[number % plan.count]
            do {
              let answer = try await client.api(call)
              bytes += answer.bytes ?? call.bytes
              if !answer.matches(call) { errors += 1 }
            } catch {
              errors += 1
              firstError = firstError ?? "\(call.path): \(error)"
            }
          }
          return (bytes, errors, firstError)
        }
      }
      var sum = (0, 0, String?.none)
      for await (bytes, errors, firstError) in group {
        sum.0 += bytes
        sum.1 += errors
        sum.2 = sum.2 ?? firstError
      }
      return sum
    }
    let elapsed = seconds(since: start)
    try? await Task.sleep(for: .seconds(1))
    var peak = sampler.stop()
    let after = ProcessSample.now()
    peak.raise(to: after)
    // What of "after" is the allocator keeping freed pages rather than memory still in use.
    trimMalloc()
    let trimmed = ProcessSample.now()
    report.value = Double(options.requests) / elapsed
    report.unit = "req/s"
    report.seconds = elapsed
    report.requests = options.requests
    report.bytes = bytes
    report.errors = errors
    report.detail = firstError ?? "\(options.concurrency) in flight, pool \(options.pool ?? 0)"
    report.fanOut = FanOutFigures(
      fdsBefore: before.descriptors,
      fdsPeak: peak.descriptors,
      fdsAfter: after.descriptors,
      threadsBefore: before.threads,
      threadsPeak: peak.threads,
      threadsAfter: after.threads,
      rssBefore: before.rss,
      rssAfter: after.rss,
      rssTrimmed: trimmed.rss
    )
  }
}

/// The `fan-out` figures, flattened into the report's JSON line.
struct FanOutFigures: Encodable {
  var fdsBefore: Int
  var fdsPeak: Int
  var fdsAfter: Int
  var threadsBefore: Int
  var threadsPeak: Int
  var threadsAfter: Int
  var rssBefore: Double
  var rssAfter: Double
  /// RSS after `malloc_trim(0)` (glibc), taken right after ``rssAfter``.
  var rssTrimmed: Double

  enum CodingKeys: String, CodingKey {
    case fdsBefore = "fds_before"
    case fdsPeak = "fds_peak"
    case fdsAfter = "fds_after"
    case threadsBefore = "threads_before"
    case threadsPeak = "threads_peak"
    case threadsAfter = "threads_after"
    case rssBefore = "rss_before_mib"
    case rssAfter = "rss_after_mib"
    case rssTrimmed = "rss_trimmed_mib"
  }
}
