import Foundation
import MalibuCore
import MalibuSerialization
import Testing

struct LargeDocumentTests {
  /// One element of the generated document, as text and as the value it must parse to.
  static func element(_ index: Int) -> (text: String, value: JSON) {
    let text = """
      {"id":\(index),"name":"item \(index) \\u00e9 \\ud83c\\udf0a","price":\(index).5,"tags":["a","b\\n"],\
      "ok":\(index % 2 == 0),"none":null,"nested":{"depth":[[\(index)]]}}
      """
    let value = JSON.object([
      "id": .int(index),
      "name": .string("item \(index) é 🌊"),
      "price": .double(Double(index) + 0.5),
      "tags": .array([.string("a"), .string("b\n")]),
      "ok": .bool(index % 2 == 0),
      "none": .null,
      "nested": .object(["depth": .array([.array([.int(index)])])]),
    ])
    return (text, value)
  }

  @Test("A document of about 5 MiB parses correctly")
  func fiveMebibytes() throws {
    var text = "["
    var count = 0
    while text.utf8.count < 5 * 1024 * 1024 {
      if count > 0 { text += "," }
      text += Self.element(count).text
      count += 1
    }
    text += "]"
    let array = try makeResponse(text: text).toJsonArray()
    #expect(array.count == count)
    var mismatches = 0
    for (index, value) in array.enumerated() where JSON(value) != Self.element(index).value {
      mismatches += 1
    }
    #expect(mismatches == 0)
  }
}
