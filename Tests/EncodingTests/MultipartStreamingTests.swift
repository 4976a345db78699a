import Foundation
import MalibuCore
import MalibuEncoding
import Testing

@Suite struct MultipartStreamingTests {
  /// Reads a whole pass with a buffer of `bufferSize` bytes.
  private func stream(_ source: any BodySource, bufferSize: Int) throws -> Data {
    let reader = try source.makeReader()
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bufferSize, alignment: 1)
    defer { buffer.deallocate() }
    var result = Data()
    while true {
      let count = try reader.read(into: buffer)
      #expect(count <= bufferSize)
      if count == 0 { break }
      result.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
    }
    #expect(try reader.read(into: buffer) == 0)
    return result
  }

  private static func pattern(count: Int) -> Data {
    var state: UInt32 = 0x1234_5678
    return Data(
      (0..<count).map { _ in
        state = state &* 1_664_525 &+ 1_013_904_223
        return UInt8(truncatingIfNeeded: state >> 24)
      }
    )
  }

  @Test(arguments: [1000, 4096, 65_536])
  func aMultiMebibyteFileStreamsExactly(bufferSize: Int) throws {
    let contents = Self.pattern(count: 3 * 1024 * 1024 + 17)
    let file = try TemporaryFile(contents: contents, name: "big.bin")
    var form = MultipartFormData(boundary: "Boundary-S")
    form.append("first", name: "a")
    form.append(fileAt: file.url, name: "big", fileName: "big.bin", mimeType: "application/octet-stream")
    form.append("last", name: "z")
    var expected = Data(
      ("--Boundary-S\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nfirst\r\n"
        + "--Boundary-S\r\nContent-Disposition: form-data; name=\"big\"; filename=\"big.bin\"\r\n"
        + "Content-Type: application/octet-stream\r\n\r\n").utf8
    )
    expected.append(contents)
    expected.append(
      Data("\r\n--Boundary-S\r\nContent-Disposition: form-data; name=\"z\"\r\n\r\nlast\r\n--Boundary-S--\r\n".utf8)
    )

    #expect(form.contentLength == UInt64(expected.count))
    let streamed = try stream(form, bufferSize: bufferSize)
    #expect(streamed.count == expected.count)
    #expect(streamed == expected)
  }

  @Test(arguments: [1, 2, 3, 5, 64])
  func tinyBuffersCrossEveryPartBoundary(bufferSize: Int) throws {
    let file = try TemporaryFile(contents: Data("file bytes".utf8), name: "f.txt")
    var form = MultipartFormData()
    form.append("é日🏄", name: "t")
    form.append(fileAt: file.url, name: "f")
    form.append(Data([0, 1, 2]), name: "d")
    form.append(fileAt: file.url, name: "g")
    let streamed = try stream(form, bufferSize: bufferSize)
    #expect(streamed == (try form.encode()))
    #expect(UInt64(streamed.count) == form.contentLength)
  }

  @Test func everyReaderIsAFreshPass() throws {
    let file = try TemporaryFile(contents: Self.pattern(count: 100_000))
    var form = MultipartFormData()
    form.append(fileAt: file.url, name: "f")
    let first = try stream(form, bufferSize: 777)
    let second = try stream(form, bufferSize: 4096)
    #expect(first == second)
  }

  @Test func aFileGrowingWhileStreamedEndsInAnError() throws {
    let file = try TemporaryFile(contents: Data(repeating: 1, count: 10_000))
    var form = MultipartFormData()
    form.append(fileAt: file.url, name: "f")
    let reader = try form.makeReader()
    let handle = try FileHandle(forWritingTo: file.url)
    try handle.seekToEnd()
    try handle.write(contentsOf: Data(repeating: 2, count: 10))
    try handle.close()
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1024, alignment: 1)
    defer { buffer.deallocate() }
    let error = networkError {
      while try reader.read(into: buffer) > 0 {}
    }
    #expect(error?.code == .encodingFailed)
  }
}
