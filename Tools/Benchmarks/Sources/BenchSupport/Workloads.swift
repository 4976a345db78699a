import Foundation
import Synchronization

/// The workloads: each times only the transfers (clients are made and connections warmed up before the clock
/// starts) and checks every response, so a broken run reports errors instead of looking fast.
package enum Workloads {
  static let megabyte = 1_048_576.0

  /// Runs the measurement `options` describe with the client `makeClient` returns for its contender.
  package static func run(_ options: Options, makeClient: (Options) -> (any Client)?) async -> Report {
    var report = Report(contender: options.contender, workload: options.workload)
    guard let client = makeClient(options) else {
      report.errors = 1
      report.detail = "unknown contender \(options.contender)"
      return report
    }
    await withTaskExecutorPreference(client.taskExecutor) {
      await measure(client, options, &report)
    }
    await client.shutdown()
    return report
  }

  private static func measure(_ client: any Client, _ options: Options, _ report: inout Report) async {
    do {
      switch options.workload {
      case "idle": break  // the process's floor: runtime, libraries and a client, no transfer
      case "get-seq": try await sequential(client, options, &report)
      case "json-seq": try await sequentialBoards(client, options, &report)
      case "get-concurrent": try await concurrent(client, options, &report)
      case "download-collect": try await transfer(options, &report) { try await client.get("/100m.bin") }
      case "download-stream": try await transfer(options, &report) { try await client.stream("/100m.bin") }
      case "download-file":
        guard let out = options.out else { throw BenchError("--out is required") }
        try await transfer(options, &report) { try await client.download("/100m.bin", to: out) }
      case "upload-file": try await upload(client, options, &report)
      case "gzip-decode": try await transfer(options, &report) { try await client.decode("/100m.json") }
      case "api-mix": try await apiMix(client, options, &report)
      case "fan-out": try await fanOutDrain(client, options, &report)
      default: throw BenchError("unknown workload \(options.workload)")
      }
    } catch {
      report.errors = max(1, report.errors)
      report.detail = "\(error)"
    }
  }

  static func seconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
  }

  /// One GET at a time on the client's kept-alive connection.
  private static func sequential(_ client: any Client, _ options: Options, _ report: inout Report) async throws {
    try await sequential(options, &report) { () async throws -> (bytes: Int, isRight: Bool) in
      let count = try await client.get("/100b.bin")
      return (count, count == options.bytes)
    }
  }

  /// One GET of the 1 KiB JSON board at a time, validated and decoded (MockTransport contenders: the facade's cost
  /// per request in steady state, against the same exchange and decoding on the transport alone).
  private static func sequentialBoards(_ client: any Client, _ options: Options, _ report: inout Report) async throws {
    try await sequential(options, &report) { () async throws -> (bytes: Int, isRight: Bool) in
      (Board.sampleJSON.count, try await client.board("/1k.json") == Board.sample)
    }
  }

  /// Runs `exchange` 100 times to warm up, then `options.requests` times one after the other (or until
  /// `options.maxSeconds`), and reports the rate; a wrong answer or an error counts as an error.
  private static func sequential(
    _ options: Options,
    _ report: inout Report,
    exchange: () async throws -> (bytes: Int, isRight: Bool)
  ) async throws {
    for _ in 0..<100 {  // warm-up: connect, fill pools and caches
      _ = try? await exchange()
    }
    var errors = 0
    var bytes = 0
    var done = 0
    var firstError: (any Error)?
    let start = ContinuousClock.now
    let deadline = options.maxSeconds.map { start + .milliseconds(Int($0 * 1000)) }
    while done < options.requests {
      if done % 64 == 0, let deadline, ContinuousClock.now >= deadline { break }
      done += 1
      do {
        let answer = try await exchange()
        bytes += answer.bytes
        if !answer.isRight { errors += 1 }
      } catch {
        errors += 1
        firstError = firstError ?? error
      }
    }
    let elapsed = seconds(since: start)
    report.value = Double(done) / elapsed
    report.unit = "req/s"
    report.seconds = elapsed
    report.requests = done
    report.bytes = bytes
    report.errors = errors
    report.detail = firstError.map { "\($0)" } ?? ""
  }

  /// `concurrency` workers, each taking the next request number until `requests` are done.
  private static func concurrent(_ client: any Client, _ options: Options, _ report: inout Report) async throws {
    // Warm-up: open the connections.
    _ = await fanOut(client, options, total: options.concurrency * 4, deadline: nil)
    let start = ContinuousClock.now
    let deadline = options.maxSeconds.map { start + .milliseconds(Int($0 * 1000)) }
    let (done, bytes, errors, firstError) = await fanOut(client, options, total: options.requests, deadline: deadline)
    let elapsed = seconds(since: start)
    report.value = Double(done) / elapsed
    report.unit = "req/s"
    report.seconds = elapsed
    report.requests = done
    report.bytes = bytes
    report.errors = errors
    report.detail = firstError ?? "concurrency \(options.concurrency)"
  }

  private static func fanOut(
    _ client: any Client,
    _ options: Options,
    total: Int,
    deadline: ContinuousClock.Instant?
  ) async -> (done: Int, bytes: Int, errors: Int, firstError: String?) {
    let next = Counter()
    return await withTaskGroup(of: (Int, Int, Int, String?).self) { group in
      for _ in 0..<options.concurrency {
        group.addTask {
          var done = 0
          var bytes = 0
          var errors = 0
          var firstError: String?
          while next.take() < total {
            if let deadline, ContinuousClock.now >= deadline { break }
            done += 1
            do {
              let count = try await client.get("/100b.bin")
              bytes += count
              if count != options.bytes { errors += 1 }
            } catch {
              errors += 1
              firstError = firstError ?? "\(error)"
            }
          }
          return (done, bytes, errors, firstError)
        }
      }
      var sum = (done: 0, bytes: 0, errors: 0, firstError: String?.none)
      for await (done, bytes, errors, firstError) in group {
        sum.done += done
        sum.bytes += bytes
        sum.errors += errors
        sum.firstError = sum.firstError ?? firstError
      }
      return sum
    }
  }

  /// One large transfer; the figure is the checked byte count over the time, in MiB/s.
  private static func transfer(
    _ options: Options,
    _ report: inout Report,
    _ body: () async throws -> Int
  ) async throws {
    let start = ContinuousClock.now
    let count = try await body()
    let elapsed = seconds(since: start)
    report.value = Double(count) / megabyte / elapsed
    report.unit = "MiB/s"
    report.seconds = elapsed
    report.requests = 1
    report.bytes = count
    if count != options.bytes {
      report.errors = 1
      report.detail = "expected \(options.bytes) bytes, got \(count)"
    }
  }

  private static func upload(_ client: any Client, _ options: Options, _ report: inout Report) async throws {
    guard let file = options.file else { throw BenchError("--file is required") }
    let size = fileSize(file)
    let start = ContinuousClock.now
    let answer = try await client.upload(file, to: "/upload")
    let elapsed = seconds(since: start)
    report.value = Double(size) / megabyte / elapsed
    report.unit = "MiB/s"
    report.seconds = elapsed
    report.requests = 1
    report.bytes = size
    if !answer.contains("\"received\":\(size)}") {
      report.errors = 1
      report.detail = "the sink answered \(answer.prefix(200))"
    }
  }
}

extension Workloads {
  /// `api-mix`: `concurrency` workers take the plan's requests in turn (wrapping around) until `requests` are done;
  /// each response is checked (byte count or decoded records). Reports the rate, the process's CPU time per request
  /// and the latencies' p50 and p99. A warm-up of two requests per worker opens the connections first.
  fileprivate static func apiMix(_ client: any Client, _ options: Options, _ report: inout Report) async throws {
    guard let path = options.plan else { throw BenchError("--plan is required") }
    let plan = try ApiCall.plan(path)
    let warm = options.concurrency * 2
    _ = await apiRun(client, plan, options.concurrency, first: 0, total: warm, deadline: nil)
    let cpu = processCPUSeconds()
    let start = ContinuousClock.now
    let deadline = options.maxSeconds.map { start + .milliseconds(Int($0 * 1000)) }
    let run = await apiRun(client, plan, options.concurrency, first: warm, total: options.requests, deadline: deadline)
    let elapsed = seconds(since: start)
    let cpuSeconds = processCPUSeconds() - cpu
    let latencies = run.latencies.sorted()
    report.value = Double(latencies.count) / elapsed
    report.unit = "req/s"
    report.seconds = elapsed
    report.requests = latencies.count
    report.bytes = run.bytes
    report.errors = run.errors
    report.detail = run.firstError ?? "concurrency \(options.concurrency)"
    if !latencies.isEmpty {
      report.cpuMicrosPerRequest = cpuSeconds * 1e6 / Double(latencies.count)
      report.p50 = latencies[(latencies.count - 1) / 2] * 1e3
      report.p99 = latencies[Int(Double(latencies.count - 1) * 0.99)] * 1e3
    }
  }

  private static func apiRun(
    _ client: any Client,
    _ plan: [ApiCall],
    _ width: Int,
    first: Int,
    total: Int,
    deadline: ContinuousClock.Instant?
  ) async -> (latencies: [Double], bytes: Int, errors: Int, firstError: String?) {
    let next = Counter()
    return await withTaskGroup(of: ([Double], Int, Int, String?).self) { group in
      for _ in 0..<width {
        group.addTask {
          var latencies: [Double] = []
          var bytes = 0
          var errors = 0
          var firstError: String?
          while true {
            let number = next.take()
            guard number < total else { break }
            if let deadline, ContinuousClock.now >= deadline { break }
            let call = plan[(first + number) % plan.count]
            let start = ContinuousClock.now
            do {
              let answer = try await client.api(call)
              bytes += answer.bytes ?? call.bytes
              if !answer.matches(call) {
                errors += 1
                firstError = firstError ?? "\(call.path): expected \(call.bytes) bytes, \(call.records) records"
              }
            } catch {
              errors += 1
              firstError = firstError ?? "\(call.path): \(error)"
            }
            latencies.append(seconds(since: start))
          }
          return (latencies, bytes, errors, firstError)
        }
      }
      var sum = (latencies: [Double](), bytes: 0, errors: 0, firstError: String?.none)
      for await (latencies, bytes, errors, firstError) in group {
        sum.latencies += latencies
        sum.bytes += bytes
        sum.errors += errors
        sum.firstError = sum.firstError ?? firstError
      }
      return sum
    }
  }
}

/// The next request number, shared by the workers of a concurrent workload.
final class Counter: Sendable {
  private let value = Atomic(0)

  /// Returns the current number and moves on to the next.
  func take() -> Int {
    value.add(1, ordering: .relaxed).oldValue
  }
}
