/// The rules for writing parameters as `application/x-www-form-urlencoded` text, used for URL queries and form
/// bodies alike.
///
/// - Keys are sorted at every depth, so the same parameters always give the same text.
/// - Dictionaries nest with brackets (`board[title]=Balsa`), arrays as `key[]=1&key[]=2` (see ``ArrayStyle``).
/// - `true`/`false` are `1`/`0` (see ``BoolStyle``); `nil` is the key with an empty value (`key=`); empty arrays and
///   dictionaries add nothing.
/// - Keys (brackets included) and values are escaped by ``escape(_:)``.
///
/// ```swift
/// try FormURLEncoding().queryString(from: ["a": ["b": 1]])   // "a%5Bb%5D=1"
/// ```
public struct FormURLEncoding: Hashable, Sendable {
  /// How array elements are keyed.
  public enum ArrayStyle: Hashable, Sendable {
    /// `key[]=1&key[]=2` (the default; what Rails, PHP and Alamofire expect).
    case brackets
    /// `key=1&key=2`.
    case noBrackets
    /// `key[0]=1&key[1]=2`.
    case indexInBrackets
  }

  /// How booleans are written.
  public enum BoolStyle: Hashable, Sendable {
    /// `1` and `0` (the default).
    case numeric
    /// `true` and `false`.
    case literal
  }

  /// How array elements are keyed.
  public var arrayStyle: ArrayStyle
  /// How booleans are written.
  public var boolStyle: BoolStyle

  /// Creates the rules.
  /// - Parameters:
  ///   - arrayStyle: How array elements are keyed; ``ArrayStyle/brackets`` by default.
  ///   - boolStyle: How booleans are written; ``BoolStyle/numeric`` by default.
  public init(arrayStyle: ArrayStyle = .brackets, boolStyle: BoolStyle = .numeric) {
    self.arrayStyle = arrayStyle
    self.boolStyle = boolStyle
  }

  /// The parameters as escaped `key=value` pairs joined with `&`.
  /// - Parameter parameters: The parameters.
  /// - Returns: The text, empty for no parameters.
  /// - Throws: ``NetworkError`` with code ``NetworkError/Code/unsupportedParameter`` for a value that cannot be sent.
  public func queryString(from parameters: Parameters) throws(NetworkError) -> String {
    queryString(from: try ParameterValue.normalize(parameters))
  }

  /// The normalised parameters as escaped `key=value` pairs joined with `&`.
  /// - Parameter values: The parameters as value trees.
  /// - Returns: The text, empty for no parameters.
  public func queryString(from values: [String: ParameterValue]) -> String {
    fields(from: values).map { Self.escape($0.name) + "=" + Self.escape($0.value) }.joined(separator: "&")
  }

  /// The normalised parameters as flat, unescaped `(name, value)` fields, in the order and with the key scheme of
  /// ``queryString(from:)-(Parameters)`` — what a multipart form needs, field by field.
  ///
  /// ```swift
  /// FormURLEncoding().fields(from: ["a": .object(["b": .int(1)])])   // [(name: "a[b]", value: "1")]
  /// ```
  /// - Parameter values: The parameters as value trees.
  /// - Returns: The fields.
  public func fields(from values: [String: ParameterValue]) -> [(name: String, value: String)] {
    var fields: [(name: String, value: String)] = []
    for key in values.keys.sorted() {
      append(values[key]!, key: key, to: &fields)
    }
    return fields
  }

  private func append(_ value: ParameterValue, key: String, to fields: inout [(name: String, value: String)]) {
    switch value {
    case .object(let dictionary):
      for subkey in dictionary.keys.sorted() {
        append(dictionary[subkey]!, key: "\(key)[\(subkey)]", to: &fields)
      }
    case .array(let array):
      for (index, element) in array.enumerated() {
        let elementKey: String
        switch arrayStyle {
        case .brackets: elementKey = "\(key)[]"
        case .noBrackets: elementKey = key
        case .indexInBrackets: elementKey = "\(key)[\(index)]"
        }
        append(element, key: elementKey, to: &fields)
      }
    case .null: fields.append((key, ""))
    case .bool(let bool):
      fields.append((key, boolStyle == .numeric ? (bool ? "1" : "0") : (bool ? "true" : "false")))
    case .int(let int): fields.append((key, String(int)))
    case .double(let double): fields.append((key, String(double)))
    case .string(let string): fields.append((key, string))
    }
  }

  /// Percent-escapes text for a query or form body by RFC 3986: every byte of the UTF-8 form is escaped
  /// (upper-case hex) except the unreserved `A–Z a–z 0–9 - . _ ~` and the `?` and `/` a query may hold; a space is
  /// `%20`.
  ///
  /// ```swift
  /// FormURLEncoding.escape("a+b=c&d")   // "a%2Bb%3Dc%26d"
  /// ```
  /// - Parameter string: The text.
  /// - Returns: The escaped text.
  public static func escape(_ string: String) -> String {
    let utf8 = string.utf8
    if utf8.allSatisfy(isUnescaped) { return string }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(utf8.count * 3)
    for byte in utf8 {
      if isUnescaped(byte) {
        bytes.append(byte)
      } else {
        bytes.append(UInt8(ascii: "%"))
        bytes.append(hexDigits[Int(byte >> 4)])
        bytes.append(hexDigits[Int(byte & 0x0F)])
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

  private static func isUnescaped(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"):
      return true
    case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "?"),
      UInt8(ascii: "/"):
      return true
    default:
      return false
    }
  }
}
