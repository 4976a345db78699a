import Foundation

/// The demo's settings, from its arguments and environment (parsed by hand: the demo needs no dependency).
struct DemoOptions: Sendable {
  /// httpbin's base URL: `--httpbin URL` or `MALIBU_DEMO_HTTPBIN`.
  var httpbin: URL
  /// The Python with httpbin and gunicorn, for the second httpbin of the offline step: `--python PATH`,
  /// `MALIBU_DEMO_PYTHON`, or the project's `.venv/bin/python`.
  var python: URL
  /// `Tools/servers/supervise.sh`, which keeps that second server from outliving the demo.
  var supervisor: URL
  /// `--verbose`: Malibu logs every request and response.
  var verbose = false

  static let usage = """
    usage: swift run MalibuDemo --httpbin http://127.0.0.1:PORT [--python PATH] [--verbose]

    A tour of Malibu against a local httpbin (`make demo` starts one and runs this).
      --httpbin URL   httpbin's base URL (or MALIBU_DEMO_HTTPBIN)
      --python PATH   a Python with httpbin and gunicorn, for the offline step's second server
                      (or MALIBU_DEMO_PYTHON; default: the project's .venv/bin/python)
      --verbose       log every request and response (Malibu.logger.level = .verbose)
    """

  /// What went wrong with the command line.
  struct UsageError: Error, CustomStringConvertible {
    var description: String
  }

  /// The options in `arguments` (without the program name) and `environment`; `nil` for `--help`.
  static func parse(_ arguments: [String], environment: [String: String]) throws(UsageError) -> DemoOptions? {
    let root = projectRoot
    var httpbin = environment["MALIBU_DEMO_HTTPBIN"]
    var python = environment["MALIBU_DEMO_PYTHON"] ?? root.appendingPathComponent(".venv/bin/python").path
    var verbose = false
    var remaining = arguments[...]
    while let argument = remaining.popFirst() {
      let (name, inlineValue) = split(argument)
      func value() throws(UsageError) -> String {
        if let inlineValue { return inlineValue }
        guard let next = remaining.popFirst() else { throw UsageError(description: "\(name) needs a value") }
        return next
      }
      switch name {
      case "-h", "--help": return nil
      case "--httpbin": httpbin = try value()
      case "--python": python = try value()
      case "--verbose", "-v": verbose = true
      default: throw UsageError(description: "unknown argument \(argument)")
      }
    }
    guard let httpbin, !httpbin.isEmpty else {
      throw UsageError(
        description: "no httpbin address: pass --httpbin http://127.0.0.1:PORT or set MALIBU_DEMO_HTTPBIN"
      )
    }
    guard let url = URL(string: httpbin), url.scheme == "http" || url.scheme == "https", url.host != nil else {
      throw UsageError(description: "--httpbin \(httpbin) is not an http:// URL")
    }
    return DemoOptions(
      httpbin: url,
      python: URL(fileURLWithPath: python),
      supervisor: root.appendingPathComponent("Tools/servers/supervise.sh"),
      verbose: verbose
    )
  }

  /// `--name=value` → (`--name`, `value`); anything else → (argument, nil).
  private static func split(_ argument: String) -> (String, String?) {
    guard argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
    return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
  }

  /// The repository this file was compiled from (`Tools/Demo/DemoOptions.swift` → three folders up).
  private static var projectRoot: URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
  }
}
