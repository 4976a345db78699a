/// Re-indents and colours JSON text without parsing it into objects, so that key order and numbers stay exactly as
/// the server sent them.
struct JSONPrettyPrinter {
  /// Spaces per level, or `nil` to keep the text's own layout (colours only).
  var indent: Int?
  /// ANSI colours.
  var colors: Bool

  private enum Token {
    case punctuation(Character)
    case string(String)
    case literal(String)
  }

  /// The formatted text, or `nil` when the text is not well-formed JSON.
  func format(_ text: String) -> String? {
    guard let tokens = Self.tokenize(text) else { return nil }
    if indent == nil { return colour(tokens, text: text) }
    var output = ""
    var depth = 0
    var expectingKey = [Bool]()
    var afterColon = false
    func newline() { output += "\n" + String(repeating: " ", count: depth * (indent ?? 4)) }
    for (index, token) in tokens.enumerated() {
      switch token {
      case .punctuation(let character):
        switch character {
        case "{", "[":
          output += paint(String(character), "1")
          let next = index + 1 < tokens.count ? tokens[index + 1] : nil
          depth += 1
          expectingKey.append(character == "{")
          if case .punctuation(let closing) = next, closing == "}" || closing == "]" { continue }
          newline()
        case "}", "]":
          depth -= 1
          expectingKey.removeLast()
          if index > 0, case .punctuation(let previous) = tokens[index - 1], previous == "{" || previous == "[" {
            output += paint(String(character), "1")
          } else {
            newline()
            output += paint(String(character), "1")
          }
        case ",":
          output += ","
          newline()
        case ":":
          output += ": "
          afterColon = true
          continue
        default: output.append(character)
        }
      case .string(let raw):
        let isKey = expectingKey.last == true && !afterColon
        output += paint(raw, isKey ? "34" : "33")
      case .literal(let raw):
        output += paint(raw, raw.first.map { $0 == "-" || $0.isNumber } == true ? "36" : "35")
      }
      afterColon = false
    }
    return output
  }

  private func paint(_ text: String, _ code: String) -> String {
    colors ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
  }

  /// Colours only, the text's whitespace kept.
  private func colour(_ tokens: [Token], text: String) -> String {
    // Re-tokenize while copying whitespace through.
    var output = ""
    var expectingKey = [Bool]()
    var afterColon = false
    var characters = Substring(text)
    while let character = characters.first {
      if character.isWhitespace {
        output.append(character)
        characters.removeFirst()
        continue
      }
      if character == "\"" {
        let raw = Self.scanString(&characters) ?? ""
        output += paint(raw, expectingKey.last == true && !afterColon ? "34" : "33")
        afterColon = false
        continue
      }
      if "{[".contains(character) { expectingKey.append(character == "{") }
      if "}]".contains(character), !expectingKey.isEmpty { expectingKey.removeLast() }
      if "{}[],:".contains(character) {
        output.append(character)
        afterColon = character == ":"
        characters.removeFirst()
        continue
      }
      let literal = characters.prefix { !$0.isWhitespace && !"{}[],:".contains($0) }
      characters.removeFirst(literal.count)
      output += paint(String(literal), literal.first.map { $0 == "-" || $0.isNumber } == true ? "36" : "35")
      afterColon = false
    }
    return output
  }

  private static func scanString(_ characters: inout Substring) -> String? {
    var raw = "\""
    characters.removeFirst()
    var escaped = false
    while let character = characters.first {
      characters.removeFirst()
      raw.append(character)
      if escaped {
        escaped = false
      } else if character == "\\" {
        escaped = true
      } else if character == "\"" {
        return raw
      }
    }
    return nil
  }

  /// The tokens, or `nil` when the text is not well-formed JSON (checked by a small recursive descent).
  private static func tokenize(_ text: String) -> [Token]? {
    var tokens: [Token] = []
    var characters = Substring(text)
    while let character = characters.first {
      if character.isWhitespace {
        characters.removeFirst()
      } else if "{}[],:".contains(character) {
        tokens.append(.punctuation(character))
        characters.removeFirst()
      } else if character == "\"" {
        guard let raw = scanString(&characters) else { return nil }
        tokens.append(.string(raw))
      } else {
        let literal = characters.prefix { !$0.isWhitespace && !"{}[],:\"".contains($0) }
        guard isLiteral(literal) else { return nil }
        tokens.append(.literal(String(literal)))
        characters.removeFirst(literal.count)
      }
    }
    var position = 0
    guard parseValue(tokens, &position), position == tokens.count else { return nil }
    return tokens
  }

  private static func isLiteral(_ text: Substring) -> Bool {
    if text == "true" || text == "false" || text == "null" { return true }
    guard !text.isEmpty, text.allSatisfy({ $0.isASCII && ($0.isNumber || "+-.eE".contains($0)) }) else { return false }
    return Double(text) != nil
  }

  private static func parseValue(_ tokens: [Token], _ position: inout Int) -> Bool {
    guard position < tokens.count else { return false }
    switch tokens[position] {
    case .string, .literal:
      position += 1
      return true
    case .punctuation("{"):
      position += 1
      if case .punctuation("}") = tokens[safe: position] {
        position += 1
        return true
      }
      while true {
        guard case .string = tokens[safe: position] else { return false }
        position += 1
        guard case .punctuation(":") = tokens[safe: position] else { return false }
        position += 1
        guard parseValue(tokens, &position) else { return false }
        switch tokens[safe: position] {
        case .punctuation(","): position += 1
        case .punctuation("}"):
          position += 1
          return true
        default: return false
        }
      }
    case .punctuation("["):
      position += 1
      if case .punctuation("]") = tokens[safe: position] {
        position += 1
        return true
      }
      while true {
        guard parseValue(tokens, &position) else { return false }
        switch tokens[safe: position] {
        case .punctuation(","): position += 1
        case .punctuation("]"):
          position += 1
          return true
        default: return false
        }
      }
    default:
      return false
    }
  }
}

extension Array {
  fileprivate subscript(safe index: Int) -> Element? {
    indices.contains(index) ? self[index] : nil
  }
}
