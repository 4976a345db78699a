public import Foundation
public import HTTPTypes

/// How output looks: `--pretty all` (the default on a terminal), `colors`, `format` or `none` (the default when
/// piped).
public struct Pretty: Hashable, Sendable {
  /// ANSI colours.
  public var colors: Bool
  /// JSON re-indented.
  public var format: Bool

  /// Creates a style.
  /// - Parameters:
  ///   - colors: ANSI colours.
  ///   - format: JSON re-indented.
  public init(colors: Bool, format: Bool) {
    self.colors = colors
    self.format = format
  }

  /// Parses a `--pretty` value.
  /// - Parameter name: `all`, `colors`, `format` or `none`.
  /// - Throws: ``SurfError`` for another name.
  public init(name: String) throws(SurfError) {
    switch name {
    case "all": self.init(colors: true, format: true)
    case "colors": self.init(colors: true, format: false)
    case "format": self.init(colors: false, format: true)
    case "none": self.init(colors: false, format: false)
    default: throw SurfError.usage("--pretty: '\(name)' is not one of all, colors, format, none")
    }
  }
}

/// Turns heads and bodies into text, coloured with plain ANSI escape codes when asked.
public struct Formatter: Sendable {
  /// The style.
  public var pretty: Pretty

  /// Creates a formatter.
  /// - Parameter pretty: The style.
  public init(pretty: Pretty) { self.pretty = pretty }

  enum Color: String {
    case reset = "0"
    case bold = "1"
    case red = "31"
    case green = "32"
    case yellow = "33"
    case blue = "34"
    case magenta = "35"
    case cyan = "36"
    case gray = "90"
  }

  func paint(_ text: String, _ color: Color) -> String {
    pretty.colors ? "\u{1B}[\(color.rawValue)m\(text)\u{1B}[0m" : text
  }

  /// The request line and header fields, as sent.
  /// - Parameter request: The request head.
  /// - Returns: The lines, ending with an empty one.
  public func requestHead(_ request: HTTPRequest) -> String {
    var lines = [
      "\(paint(request.method.rawValue, .green)) \(paint(request.path ?? "/", .cyan))"
    ]
    if let authority = request.authority {
      lines.append("\(paint("Host", .cyan)): \(authority)")
    }
    lines += request.headerFields.map { "\(paint($0.name.rawName, .cyan)): \($0.value)" }
    return lines.joined(separator: "\n") + "\n\n"
  }

  /// The status line and header fields of a response.
  /// - Parameter response: The response head.
  /// - Returns: The lines, ending with an empty one.
  public func responseHead(_ response: HTTPResponse) -> String {
    let color: Color =
      switch response.status.code {
      case 200..<300: .green
      case 300..<400: .yellow
      default: .red
      }
    let status = "\(response.status.code) \(response.status.reasonPhrase)"
    var lines = ["\(paint("HTTP", .blue)) \(paint(status, color))"]
    lines += response.headerFields.map { "\(paint($0.name.rawName, .cyan)): \($0.value)" }
    return lines.joined(separator: "\n") + "\n\n"
  }

  /// A body as text: JSON re-indented and coloured as the style asks, other text as it is, binary data replaced by a
  /// note on a terminal.
  /// - Parameters:
  ///   - data: The body.
  ///   - contentType: Its `Content-Type`, if any.
  ///   - terminal: Whether it goes to a terminal (binary data is then not written).
  /// - Returns: The text, or `nil` when the bytes should be written as they are (binary data, or any body when it is
  ///   not going to a terminal and no formatting or colour is asked for).
  public func body(_ data: Data, contentType: String?, terminal: Bool) -> String? {
    if data.isEmpty { return "" }
    // Piped and not asked to be pretty: the bytes exactly as they came (`surf URL > file`).
    if !terminal, !pretty.format, !pretty.colors { return nil }
    guard let text = String(data: data, encoding: .utf8), !data.contains(0) else {
      guard terminal else { return nil }
      return "+-----------------------------------------+\n"
        + "| NOTE: binary data not shown in terminal |\n"
        + "+-----------------------------------------+\n"
    }
    let isJSON = contentType.map { Self.isJSON($0) } ?? false
    if (pretty.format || pretty.colors) && (isJSON || Self.looksLikeJSON(text)),
      let json = JSONPrettyPrinter(indent: pretty.format ? 4 : nil, colors: pretty.colors).format(text)
    {
      return json + "\n"
    }
    return text.hasSuffix("\n") ? text : text + "\n"
  }

  static func isJSON(_ contentType: String) -> Bool {
    let mediaType = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
    guard let mediaType else { return false }
    return mediaType == "application/json" || mediaType.hasSuffix("+json") || mediaType == "text/json"
  }

  static func looksLikeJSON(_ text: String) -> Bool {
    let trimmed = text.drop { $0.isWhitespace }
    return trimmed.first == "{" || trimmed.first == "["
  }
}
