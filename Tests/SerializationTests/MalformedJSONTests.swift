import Foundation
import MalibuCore
import MalibuSerialization
import Testing

/// A body that is not well-formed JSON, the offset the error must name and a fragment of its reason.
struct MalformedSample: Sendable, CustomTestStringConvertible {
  var name: String
  var bytes: [UInt8]
  var offset: Int
  var reason: String

  init(_ name: String, _ text: String, offset: Int, _ reason: String) {
    self.init(name, bytes: Array(text.utf8), offset: offset, reason)
  }

  init(_ name: String, bytes: [UInt8], offset: Int, _ reason: String) {
    self.name = name
    self.bytes = bytes
    self.offset = offset
    self.reason = reason
  }

  var testDescription: String { name }
}

struct MalformedJSONTests {
  static let samples: [MalformedSample] = [
    MalformedSample("trailing comma in an array", "[1,2,]", offset: 5, "trailing comma"),
    MalformedSample("trailing comma in an object", #"{"a":1,}"#, offset: 7, "trailing comma"),
    MalformedSample("double comma", "[1,,2]", offset: 3, "expected a value"),
    MalformedSample("missing comma", "[1 2]", offset: 3, "expected ',' or ']'"),
    MalformedSample("single-quoted string", "['a']", offset: 1, "unexpected '''"),
    MalformedSample("unquoted key", "{a:1}", offset: 1, "expected a string key"),
    MalformedSample("missing colon", #"{"a" 1}"#, offset: 5, "expected ':'"),
    MalformedSample("unterminated string", #"["abc"#, offset: 1, "unterminated string"),
    MalformedSample("unterminated escape", #"["abc\"#, offset: 1, "unterminated string"),
    MalformedSample("bad escape", #"["a\x"]"#, offset: 3, "invalid escape '\\x'"),
    MalformedSample("short unicode escape", #"["\u12"]"#, offset: 2, "four hexadecimal digits"),
    MalformedSample("non-hex unicode escape", #"["\u12G4"]"#, offset: 2, "four hexadecimal digits"),
    MalformedSample("lone high surrogate", #"["\ud800"]"#, offset: 2, "not followed by a low surrogate"),
    MalformedSample("high surrogate then a letter", #"["\ud800\u0041"]"#, offset: 2, "followed by \\u0041"),
    MalformedSample("lone low surrogate", #"["x\udc00"]"#, offset: 3, "without a high surrogate"),
    MalformedSample("control character in a string", "[\"a\u{01}b\"]", offset: 3, "control character"),
    MalformedSample("raw newline in a string", "[\"a\nb\"]", offset: 3, "must be escaped"),
    MalformedSample(
      "invalid UTF-8 in a string",
      bytes: [0x5B, 0x22, 0x61, 0xFF, 0x22, 0x5D],
      offset: 3,
      "invalid UTF-8"
    ),
    MalformedSample("overlong UTF-8 in a string", bytes: [0x5B, 0x22, 0xC0, 0xAF, 0x22, 0x5D], offset: 2, "UTF-8"),
    MalformedSample("UTF-8 surrogate in a string", bytes: [0x22, 0xED, 0xB0, 0x80, 0x22], offset: 1, "UTF-8"),
    MalformedSample("byte 0xFF outside a string", bytes: [0x5B, 0xFF, 0x5D], offset: 1, "byte 0xFF"),
    MalformedSample("leading zero", "[01]", offset: 1, "leading zero"),
    MalformedSample("negative leading zero", "[-012]", offset: 1, "leading zero"),
    MalformedSample("NaN", "[NaN]", offset: 1, "expected a value"),
    MalformedSample("Infinity", "[Infinity]", offset: 1, "expected a value"),
    MalformedSample("minus Infinity", "[-Infinity]", offset: 2, "expected a digit after '-'"),
    MalformedSample("plus sign", "[+1]", offset: 1, "expected a value"),
    MalformedSample("bare minus", "[-]", offset: 2, "expected a digit after '-'"),
    MalformedSample("no digit after the point", "[1.]", offset: 3, "after the decimal point"),
    MalformedSample("no leading digit", "[.5]", offset: 1, "expected a value"),
    MalformedSample("empty exponent", "[1e]", offset: 3, "in the exponent"),
    MalformedSample("signed empty exponent", "[1e+]", offset: 4, "in the exponent"),
    MalformedSample("hex number", "[0x10]", offset: 2, "expected ',' or ']'"),
    MalformedSample("number out of range", "[1e400]", offset: 1, "beyond the range of Double"),
    MalformedSample("huge integer out of range", "[" + String(repeating: "9", count: 400) + "]", offset: 1, "beyond"),
    MalformedSample("misspelt true", "[tru]", offset: 4, "expected 'true'"),
    MalformedSample("misspelt null", "[nul", offset: 4, "expected 'null'"),
    MalformedSample("capitalised literal", "[True]", offset: 1, "expected a value"),
    MalformedSample("empty after whitespace", " \n\t", offset: 3, "unexpected end of input"),
    MalformedSample("unclosed array", "[1, 2", offset: 5, "unexpected end of input"),
    MalformedSample("unclosed object", #"{"a": 1"#, offset: 7, "unexpected end of input"),
    MalformedSample("missing value", #"{"a":}"#, offset: 5, "expected a value"),
    MalformedSample("garbage after value", "[1] x", offset: 4, "after the JSON value"),
    MalformedSample("two documents", "{} {}", offset: 3, "after the JSON value"),
    MalformedSample("extra bracket", "[1]]", offset: 3, "after the JSON value"),
    MalformedSample("comment", "/* c */ []", offset: 0, "expected a value"),
    MalformedSample("line comment after value", "[] // c", offset: 3, "after the JSON value"),
    MalformedSample("mismatched brackets", "[1}", offset: 2, "expected ',' or ']'"),
    MalformedSample("NUL after value", "[]\u{0}", offset: 2, "byte 0x0"),
    MalformedSample(
      "byte-order mark twice",
      bytes: [0xEF, 0xBB, 0xBF, 0xEF, 0xBB, 0xBF, 0x5B, 0x5D],
      offset: 3,
      "byte 0xEF"
    ),
    MalformedSample("non-JSON whitespace", "[1,\u{0B}2]", offset: 3, "expected a value"),
  ]

  @Test("Malformed JSON is jsonSerializationFailed naming the byte offset", arguments: samples)
  func malformed(sample: MalformedSample) throws {
    let response = makeResponse(sample.bytes, contentType: "application/json")
    let error = expectNetworkError(.jsonSerializationFailed, response: response) { () throws(NetworkError) in
      try response.toJsonArray()
    }
    let syntax = try #require(error?.underlyingError as? JSONSyntaxError)
    #expect(syntax.offset == sample.offset, "\(syntax)")
    #expect(syntax.reason.contains(sample.reason), "\(syntax)")
    #expect(error?.message.contains("offset \(sample.offset)") == true)
    // The same body fails the same way when an object is asked for.
    expectNetworkError(.jsonSerializationFailed, response: response) { () throws(NetworkError) in
      try response.toJsonDictionary()
    }
  }
}
