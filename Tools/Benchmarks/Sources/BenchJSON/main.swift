// bench-json: the Codable JSON rows, one contender per process, no network.
//
//   bench-json <contender> --dir ITEMS [--plan PLAN] [--stride S] [--warmup W] [--repeats R] [--passes N]
//
// Loads the api-mix files (ITEMS/<n>.json; every S-th with --stride) or the plan's POST orders into memory, runs W
// untimed passes, then R rounds of N passes each, and prints one JSON line: the bytes of one pass and the best
// round's time per pass (MB/s = bytes / that time). Under callgrind the runner takes `--warmup 0 --repeats 1` with
// N = 1 and N = 2: the difference of the two counts is one steady pass. C's twin is C/bench_simdjson.cpp; the runner
// is Scripts/bench.py (`--json`).
//
// Contenders: decode-foundation and decode-malibujson (`[Item]` from `Data`), decode-jsonparser (Malibu's DOM,
// `Response.toJsonArray()`), encode-orders-{foundation,malibujson} (each POST `Order` of the plan) and
// encode-items-{foundation,malibujson} (each file's `[Item]`, decoded beforehand). An encode pass's bytes are what
// Foundation's encoder writes, for both contenders.

import BenchSupport
import Foundation
import Malibu
import MalibuJSON

struct Arguments {
  var contender = ""
  var directory = ""
  var plan: String?
  var stride = 1
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
      case "--dir": directory = value
      case "--plan": plan = value
      case "--stride": stride = try Self.count(value, at: 1)
      case "--warmup": warmup = try Self.count(value, at: 0)
      case "--repeats": repeats = try Self.count(value, at: 1)
      case "--passes": passes = try Self.count(value, at: 1)
      default: throw BenchError("unknown option \(arguments[index])")
      }
      index += 2
    }
    guard index == arguments.count else { throw BenchError("\(arguments[index]) needs a value") }
  }

  private static func count(_ value: String, at least: Int) throws -> Int {
    guard let number = Int(value), number >= least else { throw BenchError("\(value): expected an integer ≥ \(least)") }
    return number
  }
}

/// One contender: the bytes one pass covers, and the pass (its result keeps the work from being optimised away).
struct Contender {
  var bytes: Int
  var pass: () throws -> Int
}

/// The api-mix files in the order of their numbers, every `stride`-th one.
func items(_ arguments: Arguments) throws -> [Data] {
  let names = try FileManager.default.contentsOfDirectory(atPath: arguments.directory)
  let numbers = names.compactMap { $0.hasSuffix(".json") ? Int($0.dropLast(5)) : nil }.sorted()
  guard !numbers.isEmpty else { throw BenchError("no <n>.json files in \(arguments.directory)") }
  return try numbers.enumerated().filter { $0.offset % arguments.stride == 0 }.map { _, number in
    try Data(contentsOf: URL(fileURLWithPath: arguments.directory).appendingPathComponent("\(number).json"))
  }
}

func orders(_ arguments: Arguments) throws -> [Order] {
  guard let plan = arguments.plan else { throw BenchError("the encode-orders contenders need --plan") }
  return try ApiCall.plan(plan).compactMap(\.order)
}

func encoding<T: Encodable>(_ values: [T], with encode: @escaping (T) throws -> Data) throws -> Contender {
  let bytes = try values.reduce(0) { $0 + (try JSONEncoder().encode($1)).count }
  return Contender(bytes: bytes) { try values.reduce(0) { $0 + (try encode($1)).count } }
}

func contender(_ arguments: Arguments) throws -> Contender {
  switch arguments.contender {
  case "decode-foundation":
    let files = try items(arguments)
    let decoder = JSONDecoder()
    return Contender(bytes: files.reduce(0) { $0 + $1.count }) {
      try files.reduce(0) { $0 + (try decoder.decode([Item].self, from: $1)).count }
    }
  case "decode-malibujson":
    let files = try items(arguments)
    let decoder = MalibuJSONDecoder()
    return Contender(bytes: files.reduce(0) { $0 + $1.count }) {
      try files.reduce(0) { $0 + (try decoder.decode([Item].self, from: $1)).count }
    }
  case "decode-jsonparser":
    let files = try items(arguments)
    let request = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1", path: "/")
    let responses = files.map { Response(data: $0, status: .ok, headers: [:], request: request) }
    return Contender(bytes: files.reduce(0) { $0 + $1.count }) {
      try responses.reduce(0) { $0 + (try $1.toJsonArray()).count }
    }
  case "encode-orders-foundation":
    let encoder = JSONEncoder()
    return try encoding(try orders(arguments)) { try encoder.encode($0) }
  case "encode-orders-malibujson":
    let encoder = MalibuJSONEncoder()
    return try encoding(try orders(arguments)) { try encoder.encode($0) }
  case "encode-items-foundation":
    let encoder = JSONEncoder()
    return try encoding(try items(arguments).map { try JSONDecoder().decode([Item].self, from: $0) }) {
      try encoder.encode($0)
    }
  case "encode-items-malibujson":
    let encoder = MalibuJSONEncoder()
    return try encoding(try items(arguments).map { try JSONDecoder().decode([Item].self, from: $0) }) {
      try encoder.encode($0)
    }
  default:
    throw BenchError("unknown contender \(arguments.contender)")
  }
}

func seconds(since start: ContinuousClock.Instant) -> Double {
  let elapsed = ContinuousClock.now - start
  return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

do {
  let arguments = try Arguments(Array(CommandLine.arguments.dropFirst()))
  let chosen = try contender(arguments)
  var result = 0
  for _ in 0..<arguments.warmup {
    result &+= try chosen.pass()
  }
  var best = Double.infinity
  for _ in 0..<arguments.repeats {
    let start = ContinuousClock.now
    for _ in 0..<arguments.passes {
      result &+= try chosen.pass()
    }
    best = min(best, seconds(since: start) / Double(arguments.passes))
  }
  print(
    """
    {"contender":"\(arguments.contender)","bytes":\(chosen.bytes),"seconds":\(best),\
    "mb_per_s":\(Double(chosen.bytes) / best / 1e6),"passes":\(arguments.passes),"repeats":\(arguments.repeats),\
    "result":\(result)}
    """
  )
} catch {
  FileHandle.standardError.write(Data("bench-json: \(error)\n".utf8))
  exit(1)
}
