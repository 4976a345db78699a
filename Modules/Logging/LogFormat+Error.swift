import HTTPTypes
import Logging
import MalibuCore
import MalibuTransport

extension LogFormat {
  static func isCancellation(_ error: any Error) -> Bool {
    if error is CancellationError { return true }
    if let error = error as? TransportError { return error.isCancellation }
    if let error = error as? NetworkError { return error.code == .cancelled }
    return false
  }

  /// The metadata of a failed request: the request's method and URL, the duration, the error's type and code (and
  /// the wrapped transport error's code), and its description with the request's secrets scrubbed, on one line.
  static func errorMetadata(_ error: any Error, request: LoggedRequest?, duration: Duration?) -> Logger.Metadata {
    var metadata = request?.summaryMetadata ?? [:]
    if let duration { metadata[LogMetadataKey.durationMilliseconds] = .stringConvertible(milliseconds(of: duration)) }
    metadata[LogMetadataKey.errorType] = .string(String(describing: type(of: error)))
    if let error = error as? NetworkError {
      metadata[LogMetadataKey.errorCode] = .string(error.code.description)
      if let underlying = error.underlyingError as? TransportError {
        metadata[LogMetadataKey.underlyingErrorCode] = .string(underlying.code.description)
      }
    } else if let error = error as? TransportError {
      metadata[LogMetadataKey.errorCode] = .string(error.code.description)
    } else if let code = Mirror(reflecting: error).children.first(where: { $0.label == "code" })?.value {
      // Malibu's other errors (`StorageError`, ...) are structs with a `code` too, in modules this one cannot see.
      metadata[LogMetadataKey.errorCode] = .string("\(code)")
    }
    let description = "\(error)"
    metadata[LogMetadataKey.errorMessage] = .string(singleLine(request?.redacting(description) ?? description))
    return metadata
  }

  /// Milliseconds, to the microsecond.
  static func milliseconds(of duration: Duration) -> Double {
    (duration / .microseconds(1)).rounded() / 1000
  }

  /// `text` with line breaks written as `\n` and `\r`, so that a record stays on one line in any handler.
  static func singleLine(_ text: String) -> String {
    guard text.contains(where: \.isNewline) else { return text }
    var line = ""
    for character in text {
      switch character {
      case "\n": line += "\\n"
      case "\r": line += "\\r"
      case "\r\n": line += "\\r\\n"
      default: line.append(character.isNewline ? " " : character)
      }
    }
    return line
  }

  /// Header fields as metadata: one entry per name (as written), the values of repeated fields joined with `, `.
  static func metadata(of fields: HTTPFields) -> Logger.MetadataValue {
    var dictionary: Logger.Metadata = [:]
    for field in fields {
      let name = field.name.rawName
      let value = field.value
      if case .string(let earlier) = dictionary[name] {
        dictionary[name] = .string(earlier + ", " + value)
      } else {
        dictionary[name] = .string(value)
      }
    }
    return .dictionary(dictionary)
  }
}
