import Foundation
import MalibuJSON
import Testing

/// What `MalibuJSONEncoder` writes, `MalibuJSONDecoder` reads back as the same value. Each side is compared with
/// Foundation's elsewhere; these close the loop between the two without Foundation in it.
@Suite struct RoundTripTests {
  @Test func dictionary() throws {
    let data = try MalibuJSONEncoder().encode(["a": 1])
    #expect(try MalibuJSONDecoder().decode([String: Int].self, from: data) == ["a": 1])
  }

  @Test func apiMixRecords() throws {
    let items = (0..<4).map(Self.item)
    let bytes = try MalibuJSONEncoder().encodeBytes(items)
    #expect(try MalibuJSONDecoder().decode([JSONDifferential.Item].self, from: bytes) == items)
  }

  static func item(_ index: Int) -> JSONDifferential.Item {
    let tags: [String] = index == 0 ? [] : ["a", "b/c", "\"quoted\"\n"]
    let lat: Double = 1e-7 * Double(index)
    return JSONDifferential.Item(
      id: index - 2,
      uuid: "00000000-0000-0000-0000-00000000000\(index)",
      name: "name \(index) ü \u{1F}",
      score: Double(index) / 3,
      active: index % 2 == 0,
      tags: tags,
      location: JSONDifferential.Item.Location(lat: lat, lon: -180),
      note: index == 1 ? nil : "note \(index)"
    )
  }
}
