import Foundation

/// The whole of a client executable: parse the command line, run the measurement, print its JSON line, exit 0
/// when every response checked out.
package func benchMain(makeClient: (Options) -> (any Client)?) async -> Never {
  let options: Options
  do {
    options = try Options(Array(CommandLine.arguments.dropFirst()))
  } catch {
    FileHandle.standardError.write(Data("bench-client: \(error)\n\(Options.usage)\n".utf8))
    exit(2)
  }
  let report = await Workloads.run(options, makeClient: makeClient)
  print(report.jsonLine())
  exit(report.errors == 0 ? 0 : 1)
}
