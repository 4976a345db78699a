import Foundation

/// One `ITEM` of the command line, in HTTPie's syntax.
///
/// | Item | Meaning |
/// |---|---|
/// | `Name:Value` | a header field (`Name;` sends it empty) |
/// | `name==value` | a query parameter, in the order given |
/// | `field=value` | a string field of the JSON (or, with `--form`, form) body |
/// | `field:=json` | a raw JSON value: `count:=3`, `tags:='["a","b"]'` |
/// | `field=@file` | a string field read from a file |
/// | `field:=@file` | a raw JSON value read from a file |
/// | `field@file` | a file field of a multipart body, streamed from disk (`field@file;type=image/png`) |
/// | `@file` | the whole body, streamed from the file |
///
/// A backslash before a separator's character (`:`, `=`, `@`, `;`) makes it literal: `'a\:b=c'` is the field `a:b`.
/// Before any other character it stays, as HTTPie's does, for the ``NestedJSON`` path of a body field:
/// `'a\[b\]=c'` is the field `a\[b\]`, which the JSON body reads as the key `a[b]`.
public enum RequestItem: Hashable, Sendable {
  /// A header field; `nil` value for `Name:` with nothing after it, `""` for `Name;`.
  case header(name: String, value: String)
  /// A query parameter.
  case query(name: String, value: String)
  /// A string field of the body.
  case field(name: String, value: String)
  /// A string field of the body, read from a file.
  case fieldFromFile(name: String, path: String)
  /// A raw JSON field of the body.
  case rawJSON(name: String, json: String)
  /// A raw JSON field of the body, read from a file.
  case rawJSONFromFile(name: String, path: String)
  /// A file field of a multipart body; `mimeType` from a `;type=` suffix.
  case file(name: String, path: String, mimeType: String?)
  /// The whole body, from a file.
  case bodyFile(path: String)

  /// The separators, longest first at each position, so that `:=@` wins over `:=` and `:`.
  private static let separators = [":=@", "=@", ":=", "==", "=", "@", ":", ";"]
  /// The characters a backslash escapes in a name.
  private static let separatorCharacters: Set<Character> = [":", "=", "@", ";"]

  /// Parses one item.
  /// - Parameter text: The argument as the shell passed it.
  /// - Throws: ``SurfError`` with exit code 1 when the text has no separator, or an empty name where one is needed.
  public init(parsing text: String) throws(SurfError) {
    let characters = Array(text)
    var name = ""
    var index = 0
    while index < characters.count {
      let character = characters[index]
      if character == "\\", index + 1 < characters.count {
        let next = characters[index + 1]
        if !Self.separatorCharacters.contains(next) { name.append(character) }
        name.append(next)
        index += 2
        continue
      }
      if let separator = Self.separator(in: characters, at: index) {
        let value = String(characters[(index + separator.count)...])
        self = try Self.make(name: name, separator: separator, value: value, text: text)
        return
      }
      name.append(character)
      index += 1
    }
    throw SurfError.usage(
      "'\(text)' is not a request item (Header:Value, name==query, field=value, field:=json, field@file)"
    )
  }

  private static func separator(in characters: [Character], at index: Int) -> String? {
    for separator in separators {
      let end = index + separator.count
      if end <= characters.count, String(characters[index..<end]) == separator { return separator }
    }
    return nil
  }

  private static func make(
    name: String,
    separator: String,
    value: String,
    text: String
  ) throws(SurfError) -> RequestItem {
    if separator == "@", name.isEmpty { return .bodyFile(path: value) }
    guard !name.isEmpty else { throw SurfError.usage("'\(text)' has no name before '\(separator)'") }
    switch separator {
    case ":": return .header(name: name, value: value)
    case ";": return .header(name: name, value: "")
    case "==": return .query(name: name, value: value)
    case "=": return .field(name: name, value: value)
    case "=@": return .fieldFromFile(name: name, path: value)
    case ":=": return .rawJSON(name: name, json: value)
    case ":=@": return .rawJSONFromFile(name: name, path: value)
    default:
      // `field@path;type=mime/type`
      if let range = value.range(of: ";type=", options: .backwards) {
        return .file(name: name, path: String(value[..<range.lowerBound]), mimeType: String(value[range.upperBound...]))
      }
      return .file(name: name, path: value, mimeType: nil)
    }
  }

  /// Whether the item adds to the body (a field, a raw JSON value, a file or the whole body).
  public var isBody: Bool {
    switch self {
    case .header, .query: return false
    default: return true
    }
  }
}
