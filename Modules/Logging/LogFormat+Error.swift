import MalibuCore
import MalibuTransport

extension LogFormat {
  static func isCancellation(_ error: any Error) -> Bool {
    if error is CancellationError { return true }
    if let error = error as? TransportError { return error.isCancellation }
    if let error = error as? NetworkError { return error.code == .cancelled }
    return false
  }

  static func errorLine(_ error: any Error, request: LoggedRequest?, duration: Duration?, cancelled: Bool) -> String {
    var line = cancelled ? "<-- cancelled" : "<-- failed"
    if let request { line += " \(request.summary)" }
    if let duration { line += " (\(milliseconds(duration)))" }
    if !cancelled {
      let description = "\(error)"
      line += ": \(request?.redacting(description) ?? description)"
    }
    return line
  }
}
