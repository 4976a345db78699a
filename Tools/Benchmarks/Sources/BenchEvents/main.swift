// bench-events: the events row, one contender per process, no network.
//
//   bench-events <contender> --file STREAM [--seed S] [--warmup W] [--repeats R] [--passes N]
//
// Reads a recorded `text/event-stream` (Scripts/bench.py writes one: `.build-bench/events/stream.sse`) into memory
// and cuts it into network-sized chunks of 1-16 KiB (log-uniform, from a fixed seed), the same chunks for every
// contender, each in its parser's own chunk type made beforehand. Before any timing it parses the stream with all
// three contenders and checks that they produce the same events (count, ids, types, data). Then W untimed passes and
// R rounds of N passes each; it prints one JSON line: the events and bytes of one pass and the best round's time per
// pass. Under callgrind the runner takes `--warmup 0 --repeats 1` with N = 1 and N = 2: the difference of the two
// counts is one steady pass.
//
// Contenders:
// - malibu-parser: `ServerSentEventParser.parse(_:)` over `Data` chunks, what `ServerSentEvents` does per chunk.
// - malibu-events: `ServerSentEvents` (no reconnection) over an `AsyncSequence` of the `Data` chunks: the whole
//   public path a module user iterates, head check and state machine included.
// - openapi-runtime: swift-openapi-runtime's `asDecodedServerSentEvents()` over an `AsyncSequence` of
//   `ArraySlice<UInt8>` chunks (its events without data, from blocks of comments or `retry` alone, are not counted).

import BenchSupport
import Foundation
import MalibuTransport
import OpenAPIRuntime

struct Arguments {
  var contender = ""
  var file = ""
  var seed: UInt64 = 36
  var warmup = 1
  var repeats = 5
  var passes = 1

  init(_ arguments: [String]) throws {
    guard let first = arguments.first else { throw BenchError("missing <contender>") }
    contender = first
    var index = 1
    while index + 1 < arguments.count {
      let value = arguments[index + 1]
      switch arguments[index] {
      case "--file": file = value
      case "--seed": seed = UInt64(try Self.count(value, at: 0))
      case "--warmup": warmup = try Self.count(value, at: 0)
      case "--repeats": repeats = try Self.count(value, at: 1)
      case "--passes": passes = try Self.count(value, at: 1)
      default: throw BenchError("unknown option \(arguments[index])")
      }
      index += 2
    }
    guard index == arguments.count else { throw BenchError("\(arguments[index]) needs a value") }
    guard !file.isEmpty else { throw BenchError("missing --file STREAM") }
  }

  private static func count(_ value: String, at least: Int) throws -> Int {
    guard let number = Int(value), number >= least else { throw BenchError("\(value): expected an integer ≥ \(least)") }
    return number
  }
}

/// The chunks of a recorded stream as an `AsyncSequence`, handed out without waiting: a body already received.
struct Chunks<Element: Sendable>: AsyncSequence, Sendable {
  typealias Failure = any Error
  let chunks: [Element]

  struct AsyncIterator: AsyncIteratorProtocol {
    let chunks: [Element]
    var index = 0

    mutating func next() async throws -> Element? {
      guard index < chunks.count else { return nil }
      defer { index += 1 }
      return chunks[index]
    }
  }

  func makeAsyncIterator() -> AsyncIterator { AsyncIterator(chunks: chunks) }
}

/// The stream cut at the same places for every contender: sizes log-uniform over 1-16 KiB (SplitMix64 from `seed`).
func chunkRanges(count: Int, seed: UInt64) -> [Range<Int>] {
  var state = seed
  var ranges: [Range<Int>] = []
  var start = 0
  while start < count {
    state &+= 0x9E37_79B9_7F4A_7C15
    var mixed = (state ^ (state >> 30)) &* 0xBF58_476D_1CE4_E5B9
    mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
    mixed ^= mixed >> 31
    let size = Int(1024 * pow(2, 4 * Double(mixed >> 11) / Double(1 << 53)))
    ranges.append(start..<min(count, start + size))
    start += size
  }
  return ranges
}

/// One event as both parsers can state it: the id, the type and the data.
struct Event: Equatable {
  var id: String
  var type: String
  var data: String
}

/// What each contender needs, made before any timing.
struct Stream: Sendable {
  let bytes: Int
  let data: [Data]
  let slices: [ArraySlice<UInt8>]

  init(_ arguments: Arguments) throws {
    let whole = try Data(contentsOf: URL(fileURLWithPath: arguments.file))
    let ranges = chunkRanges(count: whole.count, seed: arguments.seed)
    bytes = whole.count
    data = ranges.map { Data(whole[$0]) }
    slices = ranges.map { ArraySlice(Array(whole[$0])) }
  }

  static let head = HTTPResponse(status: .ok, headerFields: [.contentType: "text/event-stream"])

  /// Malibu's parser, as `ServerSentEvents` feeds it: `visit` sees each event.
  func malibuParser(_ visit: (MalibuTransport.ServerSentEvent) -> Void) {
    var parser = ServerSentEventParser()
    for chunk in data {
      for event in parser.parse(chunk) { visit(event) }
    }
    parser.finish()
  }

  /// Malibu's `ServerSentEvents` over the chunks as one connection's body, with no reconnection.
  func malibuEvents(_ visit: (MalibuTransport.ServerSentEvent) -> Void) async throws {
    let body = Chunks(chunks: data)
    let events = ServerSentEvents(reconnection: .never) { _ in EventStreamConnection(head: Self.head, body: body) }
    for try await event in events { visit(event) }
  }

  /// swift-openapi-runtime's decoder over the chunks; events without data are skipped.
  func openAPIRuntime(_ visit: (OpenAPIRuntime.ServerSentEvent) -> Void) async throws {
    for try await event in Chunks(chunks: slices).asDecodedServerSentEvents() where event.data != nil {
      visit(event)
    }
  }

  /// Checks that the three contenders produce the same events, and returns how many there are.
  func check() async throws -> Int {
    var malibu: [Event] = []
    malibuParser { malibu.append(Event(id: $0.id, type: $0.type, data: $0.data)) }
    var viaSequence: [Event] = []
    try await malibuEvents { viaSequence.append(Event(id: $0.id, type: $0.type, data: $0.data)) }
    var openAPI: [Event] = []
    try await openAPIRuntime { openAPI.append(Event(id: $0.id ?? "", type: $0.event ?? "message", data: $0.data!)) }
    guard !malibu.isEmpty else { throw BenchError("no events in the stream") }
    for (name, other) in [("malibu-events", viaSequence), ("openapi-runtime", openAPI)] where other != malibu {
      let first =
        zip(malibu, other).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        ?? min(malibu.count, other.count)
      throw BenchError(
        "\(name) differs from malibu-parser: \(other.count) events against \(malibu.count), first difference at "
          + "event \(first): \(first < other.count ? "\(other[first])" : "none") against "
          + "\(first < malibu.count ? "\(malibu[first])" : "none")"
      )
    }
    return malibu.count
  }

  /// One pass of `contender`: the bytes of data its events carry (which keeps the work from being optimised away).
  func pass(_ contender: String) async throws -> Int {
    var total = 0
    switch contender {
    case "malibu-parser": malibuParser { total &+= $0.data.utf8.count }
    case "malibu-events": try await malibuEvents { total &+= $0.data.utf8.count }
    case "openapi-runtime": try await openAPIRuntime { total &+= $0.data!.utf8.count }
    default: throw BenchError("unknown contender \(contender)")
    }
    return total
  }
}

func seconds(since start: ContinuousClock.Instant) -> Double {
  let elapsed = ContinuousClock.now - start
  return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

func measure(_ arguments: Arguments) async throws -> String {
  let stream = try Stream(arguments)
  let events = try await stream.check()
  var result = 0
  for _ in 0..<arguments.warmup {
    result &+= try await stream.pass(arguments.contender)
  }
  var best = Double.infinity
  for _ in 0..<arguments.repeats {
    let start = ContinuousClock.now
    for _ in 0..<arguments.passes {
      result &+= try await stream.pass(arguments.contender)
    }
    best = min(best, seconds(since: start) / Double(arguments.passes))
  }
  return """
    {"contender":"\(arguments.contender)","events":\(events),"bytes":\(stream.bytes),"chunks":\(stream.data.count),\
    "seconds":\(best),"events_per_s":\(Double(events) / best),"mb_per_s":\(Double(stream.bytes) / best / 1e6),\
    "passes":\(arguments.passes),"repeats":\(arguments.repeats),"result":\(result)}
    """
}

/// The line (or the error), handed from the measuring task to the main thread (the semaphore orders the accesses).
final class Outcome: @unchecked Sendable {
  var result: Result<String, any Error> = .failure(BenchError("not run"))
}

// A synchronous main (the measurement runs in a task while the main thread waits), so that it runs under valgrind,
// whose 3.19 release crashes on an async `main`. Detached: top-level code is on the main actor, whose thread waits.
let outcome = Outcome()
let finished = DispatchSemaphore(value: 0)
Task.detached {
  do {
    outcome.result = .success(try await measure(Arguments(Array(CommandLine.arguments.dropFirst()))))
  } catch {
    outcome.result = .failure(error)
  }
  finished.signal()
}
finished.wait()
switch outcome.result {
case .success(let line):
  print(line)
case .failure(let error):
  FileHandle.standardError.write(Data("bench-events: \(error)\n".utf8))
  exit(1)
}
