import Foundation
@_spi(Malibu) import MalibuCore
import Synchronization
import Testing

@testable import MalibuEncoding

/// Boundaries handed out in order by the test hook; the last one repeats.
private final class BoundarySequence: Sendable {
  private let remaining: Locked<[String]>

  init(_ boundaries: [String]) {
    remaining = Locked(boundaries)
  }

  func next() -> String {
    remaining.withLock { $0.count > 1 ? $0.removeFirst() : $0[0] }
  }
}

@Suite struct MultipartBoundaryTests {
  @Test func aTextPartHoldingTheRandomBoundaryGetsANewBoundary() throws {
    var form = MultipartFormData()
    let first = form.boundary
    let value = "before \(first) after"
    form.append(value, name: "trap")
    #expect(form.boundary != first)
    #expect(form.recordedError == nil)
    let encoded = text(try form.encode())
    #expect(encoded.hasPrefix("--\(form.boundary)\r\n"))
    #expect(encoded.contains(value))
    #expect(form.contentType == "multipart/form-data; boundary=\(form.boundary)")
    #expect(form.contentLength == UInt64(encoded.utf8.count))
  }

  static let collisions: [(generated: [String], parts: [String], expected: String)] = [
    // The first replacement collides too: keep drawing.
    (["Boundary-A", "Boundary-A", "Boundary-B"], ["x Boundary-A y"], "Boundary-B"),
    // The replacement occurs in an earlier part: it is rejected as well.
    (["Boundary-A", "Boundary-B", "Boundary-C"], ["has Boundary-B", "has Boundary-A"], "Boundary-C"),
    // No collision: the first boundary stays.
    (["Boundary-A", "Boundary-D"], ["plain"], "Boundary-A"),
  ]

  @Test(arguments: collisions)
  func collisionsAreResolvedByDrawingAgain(generated: [String], parts: [String], expected: String) throws {
    let sequence = BoundarySequence(generated)
    var form = MultipartFormData(boundaryGenerator: sequence.next)
    for (index, value) in parts.enumerated() { form.append(value, name: "p\(index)") }
    #expect(form.boundary == expected)
    #expect(form.recordedError == nil)
    let encoded = text(try form.encode())
    for value in parts { #expect(encoded.contains("\r\n\r\n\(value)\r\n--\(expected)")) }
  }

  @Test func theBoundaryIsLookedForInNamesAndData() throws {
    let sequence = BoundarySequence(["Boundary-A", "Boundary-B", "Boundary-C"])
    var form = MultipartFormData(boundaryGenerator: sequence.next)
    form.append("v", name: "name Boundary-A")
    #expect(form.boundary == "Boundary-B")
    form.append(Data("..Boundary-B..".utf8), name: "d", fileName: "f")
    #expect(form.boundary == "Boundary-C")
  }

  @Test func aGeneratorThatKeepsCollidingEndsInAnErrorNotAHang() {
    var form = MultipartFormData(boundaryGenerator: { "Boundary-A" })
    form.append("Boundary-A", name: "t")
    #expect(form.recordedError?.code == .encodingFailed)
    #expect(networkError { _ = try form.encode() }?.code == .encodingFailed)
  }

  static let chosenBoundaryCases: [(value: String, isError: Bool)] = [
    ("Balsa", false),
    ("B-B", false),
    ("--B", true),
    ("x\r\n--B--", true),
    ("a--Bb", true),
  ]

  @Test(arguments: chosenBoundaryCases)
  func aChosenBoundaryRejectsOnlyItsDelimiter(value: String, isError: Bool) throws {
    var form = MultipartFormData(boundary: "B")
    form.append(value, name: "t")
    form.append(Data(value.utf8), name: "d")
    #expect((form.recordedError != nil) == isError)
    #expect(form.boundary == "B")
  }

  @Test func aChosenBoundaryFoundInAPartIsAnErrorNotAChange() {
    var form = MultipartFormData(boundary: "Boundary-1")
    form.append("contains --Boundary-1 inside", name: "t")
    #expect(form.boundary == "Boundary-1")
    let error = networkError { _ = try form.encode() }
    #expect(error?.code == .encodingFailed)
    #expect(error?.message.contains("'t'") == true)
  }
}

/// A boundary the caller chose, planted in a file part: found while the file is read, whatever the read sizes.
@Suite struct MultipartFileDelimiterTests {
  /// A file that forges a part named `admin` when sent with boundary `B`.
  static let forged = Data("x\r\n--B\r\nContent-Disposition: form-data; name=\"admin\"\r\n\r\n1".utf8)

  /// Reads a whole pass with a buffer of `size` bytes, keeping what was handed over before an error.
  private static func read(_ form: MultipartFormData, bufferSize size: Int) -> (Data, NetworkError?) {
    var output = Data()
    do {
      let reader = try form.makeReader()
      let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 1)
      defer { buffer.deallocate() }
      while true {
        let count = try reader.read(into: buffer)
        if count == 0 { return (output, nil) }
        output.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
      }
    } catch let error as NetworkError {
      return (output, error)
    } catch {
      Issue.record("expected a NetworkError, got \(error)")
      return (output, nil)
    }
  }

  @Test(arguments: [1, 2, 3, 4, 7, 64 * 1024])
  func aFileHoldingTheChosenDelimiterFailsTheReadBeforeTheDelimiterIsHandedOver(bufferSize: Int) throws {
    let file = try TemporaryFile(contents: Self.forged)
    var form = MultipartFormData(boundary: "B")
    form.append("v", name: "t")
    form.append(fileAt: file.url, name: "upload", mimeType: "text/plain")
    #expect(form.recordedError == nil)  // a file is scanned when read, not when appended
    let (handedOver, error) = Self.read(form, bufferSize: bufferSize)
    #expect(error?.code == .encodingFailed)
    #expect(error?.message.contains("'--B'") == true)
    #expect(error?.message.contains("part 'upload'") == true)
    #expect(!text(handedOver).contains("\r\n--B\r\nContent-Disposition: form-data; name=\"admin\""))
    #expect(networkError { _ = try form.encode() }?.code == .encodingFailed)
  }

  static let placements: [(contents: String, isError: Bool)] = [
    ("--B", true),  // the whole file
    ("--Bz at the start", true),
    ("at the end --B", true),
    ("B -B - -B B-- ---", false),  // the bare boundary and near misses are harmless
    ("", false),
  ]

  @Test(arguments: placements)
  func theDelimiterIsFoundWhereverItIsInTheFile(contents: String, isError: Bool) throws {
    let file = try TemporaryFile(contents: Data(contents.utf8))
    var form = MultipartFormData(boundary: "B")
    form.append(fileAt: file.url, name: "f")
    for size in [1, 2, 3, 64 * 1024] {
      let (body, error) = Self.read(form, bufferSize: size)
      #expect((error != nil) == isError, "buffer of \(size) bytes")
      if !isError { #expect(body == (try form.encode())) }
    }
  }

  @Test func aDelimiterPastTheFirstReadsOfALargeFileIsFound() throws {
    let padding = Data(repeating: UInt8(ascii: "a"), count: 200_000)
    let file = try TemporaryFile(contents: padding + Data("--B".utf8) + padding)
    var form = MultipartFormData(boundary: "B")
    form.append(fileAt: file.url, name: "big")
    for size in [4_096, 64 * 1024] {
      let (handedOver, error) = Self.read(form, bufferSize: size)
      #expect(error?.code == .encodingFailed)
      #expect(handedOver.count < padding.count + 200)
    }
  }

  @Test func theSameFileWithAnotherBoundaryAndAGoodFormStillEncode() throws {
    let file = try TemporaryFile(contents: Self.forged)
    var bad = MultipartFormData(boundary: "B")
    bad.append(fileAt: file.url, name: "upload", mimeType: "text/plain")
    #expect(networkError { _ = try bad.encode() }?.code == .encodingFailed)

    var good = MultipartFormData(boundary: "Boundary-1")
    good.append("v", name: "t")
    good.append(fileAt: file.url, name: "upload", mimeType: "text/plain")
    let body = try good.encode()
    let expected =
      "--Boundary-1\r\nContent-Disposition: form-data; name=\"t\"\r\n\r\nv\r\n"
      + "--Boundary-1\r\nContent-Disposition: form-data; name=\"upload\"; filename=\"file.bin\"\r\n"
      + "Content-Type: text/plain\r\n\r\n\(text(Self.forged))\r\n--Boundary-1--\r\n"
    #expect(text(body) == expected)
    #expect(UInt64(body.count) == good.contentLength)
  }

  static let splits: [(pieces: [String], found: Bool)] = [
    (["ab--Bcd"], true),
    (["ab-", "-Bcd"], true),
    (["ab--", "B"], true),
    (["-", "-", "B"], true),
    (["-", "", "-", "", "B"], true),
    (["--", "xB"], false),
    (["-", "-", "-"], false),
    (["B-", "-xB"], false),
  ]

  @Test(arguments: splits)
  func theScannerFindsADelimiterSplitAcrossPieces(pieces: [String], found: Bool) {
    var scanner = DelimiterScanner(Array("--B".utf8))
    var seen = false
    for piece in pieces {
      let hit = Array(piece.utf8).withUnsafeBytes { scanner.scan($0) }
      seen = seen || hit
    }
    #expect(seen == found)
  }
}
