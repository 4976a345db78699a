import MalibuCore
import Testing

@Suite("FormURLEncoding")
struct FormURLEncodingTests {
  static let escapes: [(String, String)] = [
    ("abcXYZ019-._~", "abcXYZ019-._~"),
    ("a b", "a%20b"),
    ("a+b=c&d", "a%2Bb%3Dc%26d"),
    (":#[]@!$&'()*+,;=", "%3A%23%5B%5D%40%21%24%26%27%28%29%2A%2B%2C%3B%3D"),
    ("path/with?query", "path/with?query"),
    ("%", "%25"),
    ("\"<>\\^`{|}", "%22%3C%3E%5C%5E%60%7B%7C%7D"),
    ("é", "%C3%A9"),
    ("日本", "%E6%97%A5%E6%9C%AC"),
    ("🏄", "%F0%9F%8F%84"),
    ("\n\t", "%0A%09"),
    ("", ""),
  ]

  @Test(arguments: escapes)
  func escaping(_ input: String, _ expected: String) {
    #expect(FormURLEncoding.escape(input) == expected)
  }

  static let queries: [(name: String, parameters: Parameters, encoding: FormURLEncoding, expected: String)] = [
    ("flat sorted", ["b": 2, "a": 1], FormURLEncoding(), "a=1&b=2"),
    ("nested", ["a": ["b": 1]], FormURLEncoding(), "a%5Bb%5D=1"),
    ("deep sorted", ["z": ["y": 1, "x": ["w": 2]] as Parameters], FormURLEncoding(), "z%5Bx%5D%5Bw%5D=2&z%5By%5D=1"),
    ("array brackets", ["ids": [1, 2]], FormURLEncoding(), "ids%5B%5D=1&ids%5B%5D=2"),
    ("array no brackets", ["ids": [1, 2]], FormURLEncoding(arrayStyle: .noBrackets), "ids=1&ids=2"),
    ("array indexed", ["ids": [1, 2]], FormURLEncoding(arrayStyle: .indexInBrackets), "ids%5B0%5D=1&ids%5B1%5D=2"),
    ("array of dicts", ["l": [["a": 1]]], FormURLEncoding(), "l%5B%5D%5Ba%5D=1"),
    ("bool numeric", ["t": true, "f": false], FormURLEncoding(), "f=0&t=1"),
    ("bool literal", ["t": true, "f": false], FormURLEncoding(boolStyle: .literal), "f=false&t=true"),
    ("null", ["n": Int?.none], FormURLEncoding(), "n="),
    ("empty collections", ["e": [Int](), "d": [String: Int]()], FormURLEncoding(), ""),
    ("double", ["d": 1.5], FormURLEncoding(), "d=1.5"),
    ("unicode", ["name": "José Müller"], FormURLEncoding(), "name=Jos%C3%A9%20M%C3%BCller"),
    ("escaped key", ["a b": "c&d"], FormURLEncoding(), "a%20b=c%26d"),
  ]

  @Test(arguments: queries)
  func queryStrings(_ name: String, _ parameters: Parameters, _ encoding: FormURLEncoding, _ expected: String) throws {
    #expect(try encoding.queryString(from: parameters) == expected, "\(name)")
  }

  @Test func outputIsDeterministic() throws {
    var parameters: Parameters = [:]
    for index in 0..<50 { parameters["key\(index)"] = ["v": index, "w": [index, index + 1]] as Parameters }
    let first = try FormURLEncoding().queryString(from: parameters)
    for _ in 0..<20 {
      let copy = parameters.reduce(into: Parameters()) { $0[$1.key] = $1.value }
      #expect(try FormURLEncoding().queryString(from: copy) == first)
    }
  }
}

@Suite("FormURLEncoding fields")
struct FormURLEncodingFieldsTests {
  @Test func fieldsAreUnescapedAndOrdered() throws {
    let values = try ParameterValue.normalize(["b": ["x y": "1&2"], "a": [true, Int?.none] as [any Sendable]])
    let fields = FormURLEncoding().fields(from: values)
    #expect(fields.map(\.name) == ["a[]", "a[]", "b[x y]"])
    #expect(fields.map(\.value) == ["1", "", "1&2"])
  }
}
