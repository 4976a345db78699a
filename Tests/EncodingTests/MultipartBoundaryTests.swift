import Foundation
import MalibuCore
import Synchronization
import Testing

@testable import MalibuEncoding

/// Boundaries handed out in order by the test hook; the last one repeats.
private final class BoundarySequence: Sendable {
  private let remaining: Mutex<[String]>

  init(_ boundaries: [String]) {
    remaining = Mutex(boundaries)
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
