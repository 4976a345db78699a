import CZlib

/// An error thrown by ``Inflater``, ``Deflater`` and the one-shot helpers of ``Gzip``.
///
/// Compare the ``code`` to tell the failures apart; the ``message`` is for humans and carries zlib's own
/// explanation when zlib gave one.
///
/// ```swift
/// do {
///   let body = try Gzip.inflate(data, limit: 10 << 20)
/// } catch let error as GzipError where error.code == .limitExceeded {
///   print("response too large: \(error)")
/// }
/// ```
public struct GzipError: Error, CustomStringConvertible, Sendable {
  /// What went wrong, as an open set of codes: new codes may be added without breaking a `switch`.
  public struct Code: Hashable, Sendable, CustomStringConvertible {
    private let name: String

    private init(_ name: String) {
      self.name = name
    }

    /// The input ended before the compressed stream did (a cut-off body, or an empty one).
    public static let truncated = Code("truncated")
    /// The input is not in the expected format, or its data or checksum is invalid.
    public static let corrupt = Code("corrupt")
    /// The decompressed output would exceed the inflater's limit.
    public static let limitExceeded = Code("limitExceeded")
    /// Bytes follow the end of the compressed stream.
    public static let trailingData = Code("trailingData")
    /// The inflater or deflater was used after ``Inflater/finish()`` or after an earlier error.
    public static let closed = Code("closed")
    /// zlib answered something unexpected, for example that it ran out of memory.
    public static let `internal` = Code("internal")

    /// The name of the code, for example `truncated`.
    public var description: String { name }
  }

  /// What went wrong.
  public let code: Code
  /// A human-readable explanation, including zlib's message when it gave one.
  public let message: String
  /// The error that caused this one, if any (for ``Code/closed``, the error that closed the stream).
  public let underlyingError: (any Error)?

  /// Creates an error.
  /// - Parameters:
  ///   - code: What went wrong.
  ///   - message: A human-readable explanation.
  ///   - underlyingError: The error that caused this one, if any.
  public init(code: Code, message: String, underlyingError: (any Error)? = nil) {
    self.code = code
    self.message = message
    self.underlyingError = underlyingError
  }

  /// The code and the message, for example `GzipError.truncated: the stream ended before its end marker`.
  public var description: String {
    var text = "GzipError.\(code): \(message)"
    if let underlyingError {
      text += " (caused by: \(underlyingError))"
    }
    return text
  }
}

extension GzipError {
  /// An error for a zlib status, with zlib's `msg` appended when the stream carries one.
  static func zlib(_ code: Code, _ context: String, status: Int32, stream: UnsafePointer<z_stream>) -> GzipError {
    var message = context
    if let text = stream.pointee.msg {
      message += ": \(String(cString: text))"
    } else {
      message += " (zlib status \(status))"
    }
    return GzipError(code: code, message: message)
  }

  /// The error thrown by an inflater or deflater that is already closed.
  static func closed(_ what: String, cause: (any Error)?) -> GzipError {
    if let cause {
      return GzipError(
        code: .closed,
        message: "\(what) failed earlier and cannot be used again",
        underlyingError: cause
      )
    }
    return GzipError(code: .closed, message: "\(what) was already finished")
  }
}
