/// What `surf` prints, by HTTPie's `--print` letters: `H` request head, `B` request body, `h` response head,
/// `b` response body.
public struct PrintSelection: Hashable, Sendable {
  /// The request's head (method, path, header fields).
  public var requestHead: Bool
  /// The request's body.
  public var requestBody: Bool
  /// The response's head (status line, header fields).
  public var responseHead: Bool
  /// The response's body.
  public var responseBody: Bool

  /// Creates a selection.
  /// - Parameters:
  ///   - requestHead: `H`.
  ///   - requestBody: `B`.
  ///   - responseHead: `h`.
  ///   - responseBody: `b`.
  public init(
    requestHead: Bool = false,
    requestBody: Bool = false,
    responseHead: Bool = false,
    responseBody: Bool = false
  ) {
    self.requestHead = requestHead
    self.requestBody = requestBody
    self.responseHead = responseHead
    self.responseBody = responseBody
  }

  /// Parses `--print` letters.
  /// - Parameter letters: Any of `H`, `B`, `h`, `b`.
  /// - Throws: ``SurfError`` for another letter or none.
  public init(letters: String) throws(SurfError) {
    self.init()
    guard !letters.isEmpty else {
      throw SurfError.usage("--print needs letters: H (request head), B (request body), h, b")
    }
    for letter in letters {
      switch letter {
      case "H": requestHead = true
      case "B": requestBody = true
      case "h": responseHead = true
      case "b": responseBody = true
      default:
        throw SurfError.usage("--print: '\(letter)' is not one of H (request head), B (request body), h, b")
      }
    }
  }

  /// The default: the response's head and body on a terminal, its body alone when standard output is redirected
  /// (HTTPie's rule).
  /// - Parameter terminal: Whether standard output is a terminal.
  /// - Returns: The selection.
  public static func standard(terminal: Bool) -> PrintSelection {
    PrintSelection(responseHead: terminal, responseBody: true)
  }

  /// `-h`/`--headers`: the response's head alone (HTTPie's `--headers`, `--print h`).
  public static let responseHeaders = PrintSelection(responseHead: true)

  /// `-v`: everything.
  public static let verbose = PrintSelection(
    requestHead: true,
    requestBody: true,
    responseHead: true,
    responseBody: true
  )
}
