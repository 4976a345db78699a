#if Lifecycle
// A server-like process for the lifecycle tests: a ServiceGroup with Malibu's service, stopped by SIGTERM.
//
// Usage: MalibuLifecycleFixture <url> <grace period in milliseconds>
// Prints, one per line: `READY` once it is about to send the request to <url> (and SIGTERM is taken over);
// `SHUTDOWN` once the graceful shutdown has begun; `COMPLETED <bytes>` or `FAILED <code>` for that request; `REFUSED <networking code> <transport code>` for the requests sent after the
// shutdown; `LOOPS <curl loop threads left>`; `LEAKED <descriptors opened since READY and still open>`; `EXIT`.
import Foundation
import Logging
import Malibu
import MalibuLifecycle
import ServiceLifecycle
import UnixSignals

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

enum FixtureEndpoint: RequestConvertible {
  case get(String)

  static let baseUrl: (any URLStringConvertible)? = nil
  static let headers: [String: String] = [:]

  var request: Request {
    switch self {
    case .get(let url): return .get(url)
    }
  }
}

/// The process's open descriptors, by number, with what each refers to.
func openDescriptors() -> [String: String] {
  let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
  var descriptors: [String: String] = [:]
  for name in names {
    // The directory's own descriptor is closed once listed: it has no target any more and is left out.
    guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)") else {
      continue
    }
    descriptors[name] = target
  }
  return descriptors
}

/// How many curl loop threads the process has.
func loopThreads() -> Int {
  let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
  return tasks.filter { task in
    ((try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? "").hasPrefix("malibu-curl")
  }.count
}

/// Whether SIGTERM no longer has its default action (which ends the process): the group's signal handling is in place.
func terminationIsTakenOver() -> Bool {
  var action = sigaction()
  sigaction(SIGTERM, nil, &action)
  #if canImport(Glibc) || canImport(Musl)
  return action.__sigaction_handler.sa_handler != nil
  #else
  return action.__sigaction_u.__sa_handler != nil
  #endif
}

func say(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func code(of error: any Error) -> String {
  if let error = error as? NetworkError {
    if error.code == .transportFailed, let cause = error.underlyingError as? TransportError { return "\(cause.code)" }
    return "\(error.code)"
  }
  if let error = error as? TransportError { return "\(error.code)" }
  return "\(type(of: error))"
}

let arguments = CommandLine.arguments
guard arguments.count == 3, let url = URL(string: arguments[1]), let grace = Int(arguments[2]) else {
  say("usage: MalibuLifecycleFixture <url> <grace period in milliseconds>")
  exit(2)
}

var logger = Logger(label: "lifecycle-fixture")
logger.logLevel = .critical

// Warm up what the process keeps for its whole life (libcurl's global state, the signal handling), so that the
// descriptors counted afterwards are the transport's alone.
let warmUp = CurlTransport()
_ = try? await warmUp.data(for: HTTPRequest(method: .get, url: url.deletingLastPathComponent()), upTo: 1 << 20)
warmUp.shutdown()

let transport = CurlTransport()
let networking = Networking<FixtureEndpoint>(transport: .custom(transport))
let service = MalibuService([networking, transport], gracePeriod: .milliseconds(grace))
let group = ServiceGroup(services: [service], gracefulShutdownSignals: [.sigterm], logger: logger)
let running = Task { try await group.run() }
// The test may signal once READY is printed: not before the group has taken SIGTERM over.
while !terminationIsTakenOver() { try await Task.sleep(for: .milliseconds(5)) }
let watcher = Task {
  while !networking.isShutDown { try await Task.sleep(for: .milliseconds(5)) }
  say("SHUTDOWN")
}

// The process's first `Task.sleep` opens a descriptor of libdispatch's timers that stays open (the watcher's may come
// after this line): open it before the baseline, or it reads as a leak.
try await Task.sleep(for: .milliseconds(1))
let baseline = openDescriptors()
say("READY")
do {
  let response = try await networking.request(.get(url.absoluteString)).value
  say("COMPLETED \(response.data.count)")
} catch {
  say("FAILED \(code(of: error))")
}
try await running.value
try await watcher.value

var refusals: [String] = []
do {
  _ = try await networking.request(.get(url.absoluteString)).value
  refusals.append("none")
} catch {
  refusals.append(code(of: error))
}
do {
  _ = try await transport.data(for: HTTPRequest(method: .get, url: url))
  refusals.append("none")
} catch {
  refusals.append(code(of: error))
}
say("REFUSED \(refusals.joined(separator: " "))")
say("LOOPS \(loopThreads())")
var leaked: [String] = []
for _ in 0..<100 {
  let now = openDescriptors()
  leaked = now.filter { baseline[$0.key] != $0.value }.map { "\($0.key)=\($0.value)" }.sorted()
  if leaked.isEmpty { break }
  try await Task.sleep(for: .milliseconds(20))
}
say("LEAKED \(leaked.joined(separator: ","))")
say("EXIT")
#endif
