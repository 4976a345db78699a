import Foundation
import MalibuCore
import MalibuSerialization
import Testing

/// A deeply nested document, named so that test output stays short.
struct DeepDocument: Sendable, CustomTestStringConvertible {
  var testDescription: String
  var text: String

  init(_ name: String, _ text: String) {
    testDescription = name
    self.text = text
  }
}

struct JSONValueTests {
  @Test(
    "Numbers: integer literals are Int, fractions and exponents are Double",
    arguments: [
      ("0", JSON.int(0)),
      ("-1", .int(-1)),
      ("42", .int(42)),
      ("1.0", .double(1.0)),
      ("1.5", .double(1.5)),
      ("-2.25", .double(-2.25)),
      ("1e3", .double(1000)),
      ("1E+2", .double(100)),
      ("2.5e-3", .double(0.0025)),
      ("0e0", .double(0)),
      ("9223372036854775807", .int(Int.max)),
      ("-9223372036854775808", .int(Int.min)),
      ("9223372036854775808", .double(9_223_372_036_854_775_808)),
      ("-9223372036854775809", .double(-9_223_372_036_854_775_808)),
      ("123456789012345678901234567890", .double(1.2345678901234568e29)),
      ("-0", .int(0)),
      ("0.1", .double(0.1)),
      ("1.7976931348623157e308", .double(Double.greatestFiniteMagnitude)),
      ("5e-324", .double(Double.leastNonzeroMagnitude)),
      ("1e-400", .double(0)),
    ]
  )
  func numbers(literal: String, expected: JSON) throws {
    #expect(try singleElement(of: "[\(literal)]") == expected)
  }

  @Test("-0.0 keeps its sign; -0 is the integer 0")
  func negativeZero() throws {
    let values = try makeResponse(text: "[-0.0, -0]").toJsonArray()
    let double = try #require(values[0] as? Double)
    #expect(double == 0 && double.sign == .minus)
    #expect(values[1] as? Int == 0)
  }

  @Test(
    "Literals: true and false are Bool (never Int), null is JSONNull",
    arguments: [("true", JSON.bool(true)), ("false", .bool(false)), ("null", .null)]
  )
  func literals(literal: String, expected: JSON) throws {
    #expect(try singleElement(of: "[\(literal)]") == expected)
    let value = try makeResponse(text: "[\(literal)]").toJsonArray()[0]
    #expect(!(value is Int) && !(value is Double))
  }

  @Test("Nested objects and arrays keep their structure")
  func nested() throws {
    let text = """
       \t\r
      {"a": [1, {"b": null, "c": [true, [], {}]}], "d": {"e": "f", "g": 2.5}, "h": [], "": "empty key"}

      """
    let dictionary = try makeResponse(text: text).toJsonDictionary()
    let expected = JSON.object([
      "a": .array([.int(1), .object(["b": .null, "c": .array([.bool(true), .array([]), .object([:])])])]),
      "d": .object(["e": .string("f"), "g": .double(2.5)]),
      "h": .array([]),
      "": .string("empty key"),
    ])
    #expect(JSON(dictionary) == expected)
    #expect(dictionary["a"] is [any Sendable])
    #expect(dictionary["d"] is [String: any Sendable])
  }

  @Test(
    "Strings: escapes, unicode escapes and surrogate pairs",
    arguments: [
      (#""plain""#, "plain"),
      (#""\u0041\u00e9\u00E9""#, "Aéé"),
      (#""\ud83d\ude00""#, "😀"),
      (#""\uD834\uDD1E clef""#, "𝄞 clef"),
      (#""\"\\\/\b\f\n\r\t""#, "\"\\/\u{8}\u{C}\n\r\t"),
      (#""nul\u0000byte""#, "nul\u{0}byte"),
      (#""\u2028\u2029""#, "\u{2028}\u{2029}"),
      (#""日本語 ✓ 🌊""#, "日本語 ✓ 🌊"),
      (#""mixed é \n 😀 \ud83c\udf0a""#, "mixed é \n 😀 🌊"),
      (#""""#, ""),
      ("\"\u{7F} del\"", "\u{7F} del"),
    ]
  )
  func strings(literal: String, expected: String) throws {
    #expect(try singleElement(of: "[\(literal)]") == .string(expected))
  }

  @Test("Duplicate keys: the last one wins")
  func duplicateKeys() throws {
    let dictionary = try makeResponse(text: #"{"a": 1, "b": 2, "a": [3]}"#).toJsonDictionary()
    #expect(JSON(dictionary) == .object(["a": .array([.int(3)]), "b": .int(2)]))
  }

  @Test("A UTF-8 byte-order mark before the JSON is skipped")
  func byteOrderMark() throws {
    let response = makeResponse([0xEF, 0xBB, 0xBF] + Array(#"{"a": 1}"#.utf8))
    #expect(JSON(try response.toJsonDictionary()) == .object(["a": .int(1)]))
  }

  @Test("The charset parameter has no effect on JSON, which is always UTF-8 (RFC 8259 §11)")
  func charsetIgnored() throws {
    let response = makeResponse(Array(#"["é"]"#.utf8), contentType: "application/json; charset=iso-8859-1")
    #expect(JSON(try response.toJsonArray()) == .array([.string("é")]))
  }

  @Test("Nesting up to 512 levels parses")
  func deepestAllowed() throws {
    let depth = 512
    let arrays = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
    var value: any Sendable = try makeResponse(text: arrays).toJsonArray()
    var levels = 1
    while let array = value as? [any Sendable], let first = array.first {
      value = first
      levels += 1
    }
    #expect(levels == depth)
    let objects = String(repeating: #"{"a":"#, count: depth - 1) + "{}" + String(repeating: "}", count: depth - 1)
    _ = try makeResponse(text: objects).toJsonDictionary()
  }

  @Test(
    "Nesting beyond 512 levels is an error at the first level too deep, never a crash",
    arguments: [
      DeepDocument("513 arrays", String(repeating: "[", count: 513) + String(repeating: "]", count: 513)),
      DeepDocument("a million open arrays", String(repeating: "[", count: 1_000_000)),
      DeepDocument(
        "600 objects in an array",
        "[" + String(repeating: #"{"a":"#, count: 600) + "1" + String(repeating: "}", count: 600) + "]"
      ),
    ]
  )
  func tooDeep(document: DeepDocument) throws {
    let text = document.text
    let response = makeResponse(text: text)
    let error = expectNetworkError(.jsonSerializationFailed, response: response) { () throws(NetworkError) in
      try response.toJsonArray()
    }
    let syntax = try #require(error?.underlyingError as? JSONSyntaxError)
    #expect(syntax.reason.contains("deeper than 512"))
    #expect(syntax.offset == (text.hasPrefix("[{") ? 1 + 511 * 5 : 512))
  }

  @Test("Parsed values round-trip into request parameters, null included")
  func parameterRoundTrip() throws {
    let dictionary = try makeResponse(text: #"{"a": null, "b": [1, 2.5, "x", true]}"#).toJsonDictionary()
    let parameters = try ParameterValue.normalize(dictionary)
    #expect(parameters["a"] == .null)
    #expect(parameters["b"] == .array([.int(1), .double(2.5), .string("x"), .bool(true)]))
    #expect(try JSONDecoder().decode([JSONNull].self, from: Data("[null]".utf8)) == [JSONNull()])
    #expect(String(decoding: try JSONEncoder().encode([JSONNull()]), as: UTF8.self) == "[null]")
  }
}
