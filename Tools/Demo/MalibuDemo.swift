import Foundation
import Malibu

/// `swift run MalibuDemo --httpbin http://127.0.0.1:PORT`: a short tour of Malibu. Exits with 0 when every step
/// behaved as expected, 1 when one did not, 2 for a bad command line.
@main
enum MalibuDemo {
  static func main() async {
    let options: DemoOptions
    do {
      guard
        let parsed = try DemoOptions.parse(
          Array(CommandLine.arguments.dropFirst()),
          environment: ProcessInfo.processInfo.environment
        )
      else {
        print(DemoOptions.usage)
        return
      }
      options = parsed
    } catch {
      printError("MalibuDemo: \(error)\n\n\(DemoOptions.usage)")
      exit(2)
    }
    let signalSources = Cleanup.shared.handleTerminationSignals()
    ServiceAddresses.httpbin = options.httpbin.absoluteString
    if options.verbose {
      // Malibu writes at .debug and .trace, which swift-log's default handler drops at its default .info.
      var logger = Logger(label: "malibu-demo")
      logger.logLevel = .trace
      Malibu.logger.logger = logger
      Malibu.logger.level = .verbose
    }
    let succeeded = await Tour(options: options).run()
    Cleanup.shared.runAll()
    withExtendedLifetime(signalSources) {}
    exit(succeeded ? 0 : 1)
  }
}
