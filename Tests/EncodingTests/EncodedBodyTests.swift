import Foundation
import MalibuCore
import MalibuEncoding
import Testing

@Suite struct EncodedBodyTests {
  @Test func noBodyHasNoHeaderAndNoLength() throws {
    for body in [EncodedBody.empty, EncodedBody(data: nil, contentType: "application/json")] {
      #expect(body.isEmpty)
      #expect(body.contentType == nil)
      #expect(body.contentLength == 0)
      #expect(try body.collect() == nil)
    }
  }

  @Test(arguments: [Data(), Data("abc".utf8)])
  func bytesInMemory(data: Data) throws {
    let body = EncodedBody(data: data, contentType: "text/plain")
    #expect(!body.isEmpty)
    #expect(body.data == data)
    #expect(body.stream == nil)
    #expect(body.contentType == "text/plain")
    #expect(body.contentLength == UInt64(data.count))
    #expect(try body.collect() == data)
  }

  @Test func aStreamedFile() throws {
    let file = try TemporaryFile(contents: Data("streamed".utf8))
    let body = EncodedBody(stream: try FileBody(url: file.url), contentType: "application/octet-stream")
    #expect(body.data == nil)
    #expect(body.contentLength == 8)
    #expect(try body.collect() == Data("streamed".utf8))
  }
}
