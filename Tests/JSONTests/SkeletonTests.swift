import Foundation
import MalibuJSON
import Testing

@Suite struct SkeletonTests {
  @Test func roundTrip() throws {
    let data = try MalibuJSONEncoder().encode(["a": 1])
    #expect(try MalibuJSONDecoder().decode([String: Int].self, from: data) == ["a": 1])
  }
}
