import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the demo must undo however it ends: temporary directories and the child server. A normal end and a thrown
/// error undo each thing through `defer` in the step that made it; SIGINT and SIGTERM run everything still registered
/// here, then exit.
final class Cleanup: Sendable {
  /// The process's registry.
  static let shared = Cleanup()

  private struct State: Sendable {
    var nextID = 0
    var actions: [Int: @Sendable () -> Void] = [:]
  }

  private let state = Mutex(State())

  /// Registers `action`; returns the id that ``run(_:)`` takes.
  func add(_ action: @escaping @Sendable () -> Void) -> Int {
    state.withLock { state in
      state.nextID += 1
      state.actions[state.nextID] = action
      return state.nextID
    }
  }

  /// Runs one registered action now (at most once) and forgets it.
  func run(_ id: Int) {
    let action = state.withLock { $0.actions.removeValue(forKey: id) }
    action?()
  }

  /// Runs every registered action, newest first.
  func runAll() {
    let actions = state.withLock { state in
      defer { state.actions = [:] }
      return state.actions.sorted { $0.key > $1.key }.map(\.value)
    }
    for action in actions {
      action()
    }
  }

  /// Cleans up and exits when the demo gets SIGINT or SIGTERM.
  ///
  /// The signals are handled by dispatch sources, not by their default action (which would skip the cleanup), so
  /// their disposition is "ignored"; ``withDefaultSignals(_:)`` undoes that for the children the demo starts.
  /// - Returns: The dispatch sources; keep them alive for as long as the signals should be handled.
  func handleTerminationSignals() -> [any DispatchSourceSignal] {
    var sources: [any DispatchSourceSignal] = []
    for signalNumber in Self.terminationSignals {
      signal(signalNumber, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
      source.setEventHandler {
        printError("MalibuDemo: interrupted (signal \(signalNumber)); cleaning up")
        Cleanup.shared.runAll()
        exit(128 + signalNumber)
      }
      source.resume()
      sources.append(source)
    }
    return sources
  }

  /// Runs `body` (a process launch) with the default disposition and no blocked signals, so the child can be stopped
  /// with SIGINT or SIGTERM: a child inherits ignored signals and the signal mask of the thread that starts it.
  func withDefaultSignals<T>(_ body: () throws -> T) rethrows -> T {
    var none = sigset_t()
    var previousMask = sigset_t()
    sigemptyset(&none)
    pthread_sigmask(SIG_SETMASK, &none, &previousMask)
    var previousActions: [Int32: sigaction] = [:]
    for signalNumber in Self.terminationSignals {
      var action = sigaction()
      var previous = sigaction()
      sigemptyset(&action.sa_mask)
      #if canImport(Glibc)
      action.__sigaction_handler.sa_handler = SIG_DFL
      #else
      action.__sigaction_u.__sa_handler = SIG_DFL
      #endif
      sigaction(signalNumber, &action, &previous)
      previousActions[signalNumber] = previous
    }
    defer {
      for (signalNumber, var previous) in previousActions {
        sigaction(signalNumber, &previous, nil)
      }
      pthread_sigmask(SIG_SETMASK, &previousMask, nil)
    }
    return try body()
  }

  private static let terminationSignals = [SIGINT, SIGTERM]
}
