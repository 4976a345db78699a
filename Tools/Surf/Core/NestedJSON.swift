import Foundation
public import MalibuCore

/// HTTPie 3's nested JSON: the name of a `field=value` or `field:=json` item is a path into the body.
///
/// | Items | Body |
/// |---|---|
/// | `a[b]=c` | `{"a":{"b":"c"}}` |
/// | `a[]:=1 a[]:=2` | `{"a":[1,2]}` |
/// | `a[b][c]:=true` | `{"a":{"b":{"c":true}}}` |
/// | `a[1]=x` | `{"a":[null,"x"]}` (missing indexes are `null`) |
/// | `[]:=1 []:=2` | `[1,2]` (a top-level array) |
/// | `'a\[b\]=c'`, `'a[\1]=c'` | `{"a[b]":"c"}`, `{"a":{"1":"c"}}` (`\[`, `\]` and `\\` escape; `\` before a number makes it a key) |
///
/// A container's type is set by its first use: a key of an array, an index of an object, or either of a string
/// fails with HTTPie's type error; a value set twice is the last one (`a[b]:=1 a[b]=x` is `{"a":{"b":"x"}}`).
/// Errors are HTTPie's words, with the item and carets under the part at fault.
public enum NestedJSON: Sendable {
  /// One step of a path.
  enum Step: Equatable {
    /// An object's key (`a` at the root, `[a]` after it).
    case key(String)
    /// An array's index (`[0]`).
    case index(Int)
    /// Append to an array (`[]`).
    case append

    /// The step's name in HTTPie's errors.
    var action: String {
      switch self {
      case .key: return "key"
      case .index: return "index"
      case .append: return "append"
      }
    }
  }

  /// A step and where it is in the item's name (its first and past-its-last character), for the carets of an error.
  struct Path: Equatable {
    var step: Step
    var start: Int
    var end: Int
    var isRoot = false

    /// The step as written: `a` at the root, else `[a]`, `[0]`, `[]`.
    var reconstructed: String {
      switch step {
      case .key(let key): return isRoot ? key : "[\(key)]"
      case .index(let index): return "[\(index)]"
      case .append: return "[]"
      }
    }
  }

  /// Builds the body of `items`, in order: (path, value).
  /// - Parameter items: Each item's name, as typed (escapes included), and its value.
  /// - Returns: An object, or an array when the paths start with `[]` or `[0]`; `{}` without items.
  /// - Throws: A usage ``SurfError`` with HTTPie's syntax or type error.
  public static func body(_ items: [(name: String, value: ParameterValue)]) throws(SurfError) -> ParameterValue {
    var context: ParameterValue?
    for (name, value) in items {
      let paths = try parse(name)
      try insert(value, into: &context, paths: paths, at: 0, name: name)
    }
    return context ?? .object([:])
  }

  // MARK: - Parsing

  enum Token: Equatable {
    case text(String)
    case number(Int)
    case open
    case close

    /// The token kind's name in HTTPie's "Expecting …" errors.
    static func name(of kind: Kind) -> String {
      switch kind {
      case .text: return "a text"
      case .number: return "a number"
      case .open: return "'['"
      case .close: return "']'"
      }
    }

    enum Kind { case text, number, open, close }

    var kind: Kind {
      switch self {
      case .text: return .text
      case .number: return .number
      case .open: return .open
      case .close: return .close
      }
    }
  }

  /// The tokens of a name, each with its span: `[` and `]` alone; text between them, a number when it reads as
  /// one and has no escape; `\[`, `\]`, `\\` are the characters themselves; `\` before a number makes it text.
  static func tokenize(_ name: String) -> [(token: Token, start: Int, end: Int)] {
    let characters = Array(name)
    var tokens: [(token: Token, start: Int, end: Int)] = []
    var buffer = ""
    var escapes = 0
    var cursor = 0
    func flush() {
      guard !buffer.isEmpty else { return }
      let start = cursor - (buffer.count + escapes)
      var token = Token.text(buffer)
      if escapes == 0 {
        if let number = pythonInt(buffer) {
          token = .number(number)
        } else if buffer.hasPrefix("\\"), pythonInt(String(buffer.dropFirst())) != nil {
          token = .text(String(buffer.dropFirst()))
        }
      }
      tokens.append((token, start, cursor))
      buffer = ""
      escapes = 0
    }
    while cursor < characters.count {
      let character = characters[cursor]
      if character == "[" || character == "]" {
        flush()
        tokens.append((character == "[" ? .open : .close, cursor, cursor + 1))
      } else if character == "\\", cursor + 1 < characters.count {
        let next = characters[cursor + 1]
        if next == "[" || next == "]" || next == "\\" {
          escapes += 1
        } else {
          buffer.append(character)
        }
        buffer.append(next)
        cursor += 1
      } else {
        buffer.append(character)
      }
      cursor += 1
    }
    flush()
    return tokens
  }

  /// A whole number as Python's `int()` reads one: spaces around, a sign, ASCII digits with single `_` between them.
  static func pythonInt(_ text: String) -> Int? {
    var digits = Substring(text.trimmingCharacters(in: .whitespaces))
    var negative = false
    if let sign = digits.first, sign == "-" || sign == "+" {
      negative = sign == "-"
      digits = digits.dropFirst()
    }
    guard let first = digits.first, let last = digits.last, first.isASCII, first.isNumber, last.isASCII, last.isNumber,
      !digits.contains("__"), digits.allSatisfy({ $0 == "_" || ($0.isASCII && $0.isNumber) }),
      let value = Int(digits.filter { $0 != "_" })
    else { return nil }
    return negative ? -value : value
  }

  /// The paths of a name: a root (a key, `[n]` or `[]`), then `[key]`, `[n]` or `[]` steps.
  static func parse(_ name: String) throws(SurfError) -> [Path] {
    let tokens = tokenize(name)
    var cursor = 0
    func expect(_ kinds: Token.Kind...) throws(SurfError) -> (token: Token, start: Int, end: Int) {
      if cursor < tokens.count {
        let token = tokens[cursor]
        cursor += 1
        if kinds.contains(token.token.kind) { return token }
        throw syntaxError(name, expecting: kinds, start: token.start, end: token.end)
      }
      let end = tokens.last?.end ?? 0
      throw syntaxError(name, expecting: kinds, start: end, end: end + 1)
    }
    guard !tokens.isEmpty else { return [Path(step: .key(""), start: 0, end: 0, isRoot: true)] }
    var paths: [Path] = []
    let first = try expect(.text, .number, .open)
    switch first.token {
    case .text(let text): paths.append(Path(step: .key(text), start: first.start, end: first.end, isRoot: true))
    case .number(let number):
      paths.append(Path(step: .key(String(number)), start: first.start, end: first.end, isRoot: true))
    default:
      let inner = try expect(.number, .close)
      if case .number(let number) = inner.token {
        let close = try expect(.close)
        paths.append(Path(step: .index(number), start: first.start, end: close.end, isRoot: true))
      } else {
        paths.append(Path(step: .append, start: first.start, end: inner.end, isRoot: true))
      }
    }
    while cursor < tokens.count {
      let open = try expect(.open)
      let inner = try expect(.text, .number, .close)
      switch inner.token {
      case .close: paths.append(Path(step: .append, start: open.start, end: inner.end))
      case .text(let text):
        let close = try expect(.close)
        paths.append(Path(step: .key(text), start: open.start, end: close.end))
      case .number(let number):
        let close = try expect(.close)
        paths.append(Path(step: .index(number), start: open.start, end: close.end))
      case .open: break  // not expected above
      }
    }
    return paths
  }

  // MARK: - Building

  /// Applies `paths[index...]` to `node`, setting `value` at the end: HTTPie's interpreter, step by step.
  static func insert(
    _ value: ParameterValue,
    into node: inout ParameterValue?,
    paths: [Path],
    at index: Int,
    name: String
  ) throws(SurfError) {
    let path = paths[index]
    let isLast = index == paths.count - 1
    // No container yet (or a null, HTTPie's `None`, in the way): the step makes the one it needs.
    if node == nil || node == .null { node = container(for: path.step) }
    switch path.step {
    case .key(let key):
      guard case .object(var object) = node else { throw typeError(name, paths, at: index, node, needs: "object") }
      if isLast {
        object[key] = value
      } else {
        var child: ParameterValue? = object[key] ?? container(for: paths[index + 1].step)
        node = nil  // one reference to the object while it changes
        try insert(value, into: &child, paths: paths, at: index + 1, name: name)
        object[key] = child
      }
      node = .object(object)
    case .index(let position):
      guard case .array(var array) = node else { throw typeError(name, paths, at: index, node, needs: "array") }
      guard position >= 0 else {
        throw SurfError.usage(
          "Value Error: Negative indexes are not supported.\n\(name)\n\(carets(start: path.start + 1, end: path.end - 1))"
        )
      }
      if array.count <= position { array += Array(repeating: .null, count: position - array.count + 1) }
      if isLast {
        array[position] = value
      } else {
        var child: ParameterValue? = array[position]
        node = nil
        try insert(value, into: &child, paths: paths, at: index + 1, name: name)
        array[position] = child ?? .null
      }
      node = .array(array)
    case .append:
      guard case .array(var array) = node else { throw typeError(name, paths, at: index, node, needs: "array") }
      if isLast {
        array.append(value)
      } else {
        var child: ParameterValue? = container(for: paths[index + 1].step)
        node = nil
        try insert(value, into: &child, paths: paths, at: index + 1, name: name)
        array.append(child ?? .null)
      }
      node = .array(array)
    }
  }

  /// The container a step reads: an object for a key, an array for an index or an append.
  static func container(for step: Step) -> ParameterValue {
    if case .key = step { return .object([:]) }
    return .array([])
  }

  /// HTTPie's name of a value's type: `object`, `array`, `number`, `string`, and Python's `bool` and `NoneType`.
  static func typeName(_ value: ParameterValue?) -> String {
    switch value {
    case .object: return "object"
    case .array: return "array"
    case .int, .double: return "number"
    case .string: return "string"
    case .bool: return "bool"
    case .null, nil: return "NoneType"
    }
  }

  static func typeError(
    _ name: String,
    _ paths: [Path],
    at index: Int,
    _ node: ParameterValue?,
    needs required: String
  ) -> SurfError {
    let path = paths[index]
    let before = paths[..<index].map(\.reconstructed).joined()
    return SurfError.usage(
      "Type Error: Cannot perform '\(path.step.action)' based access on '\(before)' which has a type of "
        + "'\(typeName(node))' but this operation requires a type of '\(required)'.\n\(name)\n"
        + carets(start: path.start, end: path.end)
    )
  }

  static func syntaxError(_ name: String, expecting kinds: [Token.Kind], start: Int, end: Int) -> SurfError {
    let names = kinds.map(Token.name(of:))
    let expected =
      names.count == 1 ? names[0] : names.dropLast().joined(separator: ", ") + " or " + (names.last ?? "")
    return SurfError.usage("Syntax Error: Expecting \(expected)\n\(name)\n\(carets(start: start, end: end))")
  }

  static func carets(start: Int, end: Int) -> String {
    String(repeating: " ", count: start) + String(repeating: "^", count: max(end - start, 1))
  }
}
