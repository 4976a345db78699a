#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Nanoseconds on the monotonic clock: what the loop measures deadlines with.
enum Monotonic {
  /// Now, in nanoseconds since an arbitrary start.
  static func now() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
  }

  /// A duration in nanoseconds; negative durations count as zero, huge ones saturate.
  static func nanoseconds(_ duration: Duration) -> UInt64 {
    let (seconds, attoseconds) = duration.components
    guard seconds >= 0, attoseconds >= 0 || seconds > 0 else { return 0 }
    let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
    if overflow { return UInt64.max / 2 }
    return min(whole &+ UInt64(max(0, attoseconds / 1_000_000_000)), UInt64.max / 2)
  }

  /// Whole milliseconds, rounded up, for libcurl's millisecond options; at least 1.
  static func milliseconds(_ nanoseconds: UInt64) -> Int {
    let value = (nanoseconds + 999_999) / 1_000_000
    return Int(min(max(value, 1), UInt64(Int32.max)))
  }
}
