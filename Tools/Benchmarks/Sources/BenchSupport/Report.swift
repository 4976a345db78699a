import Foundation

/// The one JSON line a measurement prints; the C baseline prints the same fields.
package struct Report: Encodable {
  package var contender: String
  package var workload: String
  /// requests/s or MiB/s.
  package var value: Double = 0
  package var unit = ""
  package var seconds: Double = 0
  /// Peak RSS of this process alone (VmHWM): see ``PeakMemory``.
  var peakRSS: Double = 0
  /// `getrusage(RUSAGE_SELF).ru_maxrss`, which on Linux also counts the image before `execve` (the runner's).
  var maxRSS: Double = 0
  package var requests = 0
  package var bytes = 0
  package var errors = 0
  package var detail = ""

  enum CodingKeys: String, CodingKey {
    case contender, workload, value, unit, seconds, requests, bytes, errors, detail
    case peakRSS = "peak_rss_mib"
    case maxRSS = "ru_maxrss_mib"
  }

  package init(contender: String, workload: String) {
    self.contender = contender
    self.workload = workload
  }

  package func jsonLine() -> String {
    var copy = self
    copy.peakRSS = PeakMemory.current()
    copy.maxRSS = PeakMemory.maxRSS()
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let data = (try? encoder.encode(copy)) ?? Data("{\"errors\":1}".utf8)
    return String(decoding: data, as: UTF8.self)
  }
}

/// Peak resident memory, in MiB.
enum PeakMemory {
  /// VmHWM from /proc/self/status: the high-water mark of this program's own address space. Falls back to
  /// ru_maxrss where /proc is missing.
  static func current() -> Double {
    if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
      let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
      let kib = Double(line.split(separator: " ").dropFirst().first ?? "")
    {
      return kib / 1024
    }
    return maxRSS()
  }

  static func maxRSS() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_maxrss) / 1024  // KiB on Linux
  }
}
