package import Foundation

/// The 1 KiB JSON document of the facade-overhead measurements (`json-seq` here, the ordo-one micro-benchmark), and
/// its type: what an app decodes from a small API response.
package struct Board: Codable, Sendable, Equatable {
  package var id: Int
  package var name: String
  package var description: String
  package var tags: [String]

  /// The document MockTransport answers `GET /1k.json` with.
  package static let sample = Board(
    id: 1,
    name: "Malibu",
    description: String(repeating: "A nine-foot longboard for small days. ", count: 24),
    tags: ["surf", "longboard"]
  )

  /// ``sample`` encoded (about 1 KiB).
  package static let sampleJSON: Data = (try? JSONEncoder().encode(sample)) ?? Data()
}
