import Foundation
@_spi(Malibu) import MalibuCore

/// One line of a progress bar: percentage, bar, bytes so far and in all, rate and time left.
///
/// ```
///  42% [=============>                   ]  1.2 MB / 2.9 MB  3.1 MB/s  ETA 0:01
/// ```
public struct ProgressLine: Hashable, Sendable {
  /// Bytes moved so far.
  public var done: Int64
  /// Bytes in all, when known.
  public var total: Int64?
  /// Seconds since the transfer started.
  public var elapsed: Double

  /// Creates a line.
  /// - Parameters:
  ///   - done: Bytes moved so far.
  ///   - total: Bytes in all, when known.
  ///   - elapsed: Seconds since the start.
  public init(done: Int64, total: Int64?, elapsed: Double) {
    self.done = done
    self.total = total
    self.elapsed = elapsed
  }

  /// Bytes per second so far.
  public var rate: Double { elapsed > 0 ? Double(done) / elapsed : 0 }

  /// Seconds left at the rate so far, when the total is known and bytes are moving.
  public var secondsLeft: Double? {
    guard let total, rate > 0 else { return nil }
    return max(0, Double(total - done) / rate)
  }

  /// The line, at most `width` columns wide.
  /// - Parameter width: The terminal's width.
  /// - Returns: The text, without a line break.
  public func render(width: Int) -> String {
    let sizes = total.map { "\(Self.size(done)) / \(Self.size($0))" } ?? Self.size(done)
    let eta = secondsLeft.map { "ETA \(Self.clock($0))" } ?? ""
    let tail = "  \(sizes)  \(Self.size(Int64(rate)))/s" + (eta.isEmpty ? "" : "  \(eta)")
    guard let total, total > 0 else { return String(tail.dropFirst(2).prefix(width)) }
    let fraction = min(1, max(0, Double(done) / Double(total)))
    let percent = String(Int(fraction * 100)).leftPadded(to: 3) + "% "
    let barWidth = width - percent.count - tail.count - 2 - 1
    guard barWidth >= 10 else { return String((percent + tail.dropFirst(2)).prefix(width)) }
    let filled = Int(fraction * Double(barWidth))
    let bar =
      String(repeating: "=", count: filled)
      + (filled < barWidth ? ">" + String(repeating: " ", count: barWidth - filled - 1) : "")
    return "\(percent)[\(bar)]\(tail)"
  }

  /// A byte count for people: `512 B`, `1.2 kB`, `3.4 MB`, `1.0 GB` (powers of 1000, as HTTPie's).
  /// - Parameter bytes: The count.
  /// - Returns: The text.
  public static func size(_ bytes: Int64) -> String {
    let units = ["B", "kB", "MB", "GB", "TB"]
    var value = Double(bytes)
    var unit = 0
    while value >= 1000, unit < units.count - 1 {
      value /= 1000
      unit += 1
    }
    return unit == 0 ? "\(bytes) B" : String(format: "%.1f %@", value, units[unit])
  }

  /// Seconds as `m:ss`, or `h:mm:ss` from an hour.
  static func clock(_ seconds: Double) -> String {
    let whole = Int(seconds.rounded(.up))
    let (hours, minutes, rest) = (whole / 3600, (whole % 3600) / 60, whole % 60)
    let twoDigits = { (value: Int) in value < 10 ? "0\(value)" : "\(value)" }
    return hours > 0 ? "\(hours):\(twoDigits(minutes)):\(twoDigits(rest))" : "\(minutes):\(twoDigits(rest))"
  }
}

extension String {
  fileprivate func leftPadded(to width: Int) -> String {
    count >= width ? self : String(repeating: " ", count: width - count) + self
  }
}

/// Draws a ``ProgressLine`` on standard error, redrawn in place (`\r`) at most ten times a second and cleared when
/// the transfer ends. Only made when standard error is a terminal.
public final class ProgressBar: Sendable {
  private struct State {
    /// When the bar was made, just before the request starts: the rate counts from there.
    var start = ContinuousClock.now
    var lastDraw: ContinuousClock.Instant?
    var drawn = false
    var finished = false
  }

  private let state = Locked(State())
  private let width: Int
  private let write: @Sendable (String) -> Void

  /// Creates a bar.
  /// - Parameters:
  ///   - width: The terminal's width in columns.
  ///   - write: Where the text goes (standard error).
  public init(width: Int, write: @escaping @Sendable (String) -> Void) {
    self.width = width
    self.write = write
  }

  /// Takes a progress event; draws the line if the last drawing is at least 0.1 s old, or the transfer is complete.
  /// - Parameters:
  ///   - done: Bytes moved so far.
  ///   - total: Bytes in all, when known.
  public func update(done: Int64, total: Int64?) {
    let now = ContinuousClock.now
    let line: String? = state.withLock { state in
      // Nothing to show before the first byte moves (the totals are not known yet either).
      guard !state.finished, done > 0 || total != nil else { return nil }
      let start = state.start
      let complete = total.map { done >= $0 } ?? false
      if let last = state.lastDraw, now - last < .milliseconds(100), !complete { return nil }
      state.lastDraw = now
      state.drawn = true
      let elapsed = now - start
      let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
      return ProgressLine(done: done, total: total, elapsed: seconds).render(width: width)
    }
    if let line { write("\r\u{1B}[2K" + line) }
  }

  /// Clears the line, if one was drawn, and draws no more.
  public func finish() {
    let drawn = state.withLock { state in
      defer { state.finished = true }
      return state.drawn && !state.finished
    }
    if drawn { write("\r\u{1B}[2K") }
  }
}
