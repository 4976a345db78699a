import Foundation

/// The whole of a client executable: parse the command line, run the measurement, print its JSON line, exit 0
/// when every response checked out.
///
/// The measurement runs in a task on the global executor while the main thread waits on a semaphore: a synchronous
/// `main` keeps the process free of `dispatch_main`, so the clients also run under valgrind (whose 3.19 release
/// crashes on an async `main`) for instruction counts.
package func benchMain(makeClient: @escaping @Sendable (Options) -> (any Client)?) -> Never {
  let options: Options
  do {
    options = try Options(Array(CommandLine.arguments.dropFirst()))
  } catch {
    FileHandle.standardError.write(Data("bench-client: \(error)\n\(Options.usage)\n".utf8))
    exit(2)
  }
  let finished = DispatchSemaphore(value: 0)
  let outcome = Outcome()
  Task {
    outcome.report = await Workloads.run(options, makeClient: makeClient)
    finished.signal()
  }
  finished.wait()
  guard let report = outcome.report else { exit(1) }
  print(report.jsonLine())
  exit(report.errors == 0 ? 0 : 1)
}

/// The report, handed from the measuring task to the main thread (the semaphore orders the two accesses).
private final class Outcome: @unchecked Sendable {
  var report: Report?
}
