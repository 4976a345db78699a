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
  /// `api-mix`: CPU time of the whole process over the measured requests, per request, in µs.
  package var cpuMicrosPerRequest: Double?
  /// `api-mix`: the median and 99th percentile of the requests' latencies, in ms.
  package var p50: Double?
  package var p99: Double?
  /// `fan-out`: descriptors, threads and RSS before, at peak and after (written flat into the JSON line).
  var fanOut: FanOutFigures?

  enum CodingKeys: String, CodingKey {
    case contender, workload, value, unit, seconds, requests, bytes, errors, detail
    case cpuMicrosPerRequest = "cpu_us_per_request"
    case p50 = "p50_ms"
    case p99 = "p99_ms"
    case peakRSS = "peak_rss_mib"
    case maxRSS = "ru_maxrss_mib"
  }

  /// The synthesized fields, then the `fan-out` figures in the same object.
  package func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(contender, forKey: .contender)
    try container.encode(workload, forKey: .workload)
    try container.encode(value, forKey: .value)
    try container.encode(unit, forKey: .unit)
    try container.encode(seconds, forKey: .seconds)
    try container.encode(peakRSS, forKey: .peakRSS)
    try container.encode(maxRSS, forKey: .maxRSS)
    try container.encode(requests, forKey: .requests)
    try container.encode(bytes, forKey: .bytes)
    try container.encode(errors, forKey: .errors)
    try container.encode(detail, forKey: .detail)
    try container.encodeIfPresent(cpuMicrosPerRequest, forKey: .cpuMicrosPerRequest)
    try container.encodeIfPresent(p50, forKey: .p50)
    try container.encodeIfPresent(p99, forKey: .p99)
    try fanOut?.encode(to: encoder)
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
