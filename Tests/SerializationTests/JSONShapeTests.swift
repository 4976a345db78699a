import Foundation
import MalibuCore
import MalibuSerialization
import Testing

struct JSONShapeTests {
  @Test(
    "toJsonDictionary rejects every top-level value that is not an object",
    arguments: [
      ("[1, 2]", "an array"), (#""text""#, "a string"), ("42", "a number"), ("4.2", "a number"),
      ("true", "a boolean"), ("null", "null"),
    ]
  )
  func notAnObject(text: String, kind: String) throws {
    let response = makeResponse(text: text)
    let error = expectNetworkError(.unexpectedJSONShape, response: response) { () throws(NetworkError) in
      try response.toJsonDictionary()
    }
    #expect(error?.message.contains("to be an object, but it is \(kind)") == true, "\(error?.message ?? "")")
  }

  @Test(
    "toJsonArray rejects every top-level value that is not an array",
    arguments: [
      (#"{"a": [1]}"#, "an object"), (#""text""#, "a string"), ("-7", "a number"), ("false", "a boolean"),
      ("null", "null"),
    ]
  )
  func notAnArray(text: String, kind: String) throws {
    let response = makeResponse(text: text)
    let error = expectNetworkError(.unexpectedJSONShape, response: response) { () throws(NetworkError) in
      try response.toJsonArray()
    }
    #expect(error?.message.contains("to be an array, but it is \(kind)") == true, "\(error?.message ?? "")")
  }

  @Test("The right shape succeeds")
  func rightShape() throws {
    #expect(JSON(try makeResponse(text: "[1, \"a\"]").toJsonArray()) == .array([.int(1), .string("a")]))
    #expect(JSON(try makeResponse(text: #"{"k": false}"#).toJsonDictionary()) == .object(["k": .bool(false)]))
  }
}
