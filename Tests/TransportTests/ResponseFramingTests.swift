import HTTPTypes
import MalibuTransport
import Testing

@Suite("Response framing")
struct ResponseFramingTests {
  private func fields(_ lengths: [String]) -> HTTPFields {
    var fields = HTTPFields()
    fields[.contentType] = "text/plain"
    for length in lengths { fields.append(HTTPField(name: .contentLength, value: length)) }
    return fields
  }

  @Test(arguments: [[], ["0"], ["6"], ["6", "6"], ["6, 6"], [" 6 "], ["6,6", "6"], ["123456789012"]])
  func soundLengthsPass(lengths: [String]) {
    #expect(ResponseFraming.problem(in: fields(lengths)) == nil)
  }

  @Test(arguments: [
    ["6", "5"], ["6, 5"], ["abc"], ["-1"], ["+6"], ["6 6"], ["0x10"], [""], ["6,"], ["6", ""], ["1.5"],
  ])
  func invalidOrConflictingLengthsAreProtocolErrors(lengths: [String]) throws {
    let error = try #require(ResponseFraming.problem(in: fields(lengths)))
    #expect(error.code == .protocolError)
    #expect(error.message.contains("Content-Length"))
  }
}
