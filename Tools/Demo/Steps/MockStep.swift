import Malibu

/// A `MockProvider` answers the endpoints it knows (`.board`) and lets the others (`.uuid`) go to the network.
/// Mocked requests pass every hook a real one does; only the transport is replaced.
enum MockStep {
  static func run(_ options: DemoOptions) async throws {
    let mocks = MockProvider<HttpbinEndpoint> { endpoint in
      switch endpoint {
      case .board(let id): return Mock(json: ["id": id, "title": "Balsa Fish", "type": 2])
      default: return nil
      }
    }
    let networking = Networking<HttpbinEndpoint>(mockProvider: mocks)

    async let mocked = timed { try await networking.request(.board(id: 1)).validate().decode(using: Board.self).value }
    async let real = networking.request(.uuid).validate().decode(using: UUIDEcho.self).value
    let (board, elapsed) = try await mocked
    let uuid = try await real.uuid
    try expect(board == Board(id: 1, title: "Balsa Fish", type: 2), "the mock answered \(board)")
    try expect(uuid.count == 36, "GET /uuid answered \"\(uuid)\"")

    let unmocked = try await Networking<HttpbinEndpoint>().request(.board(id: 1)).value
    try expect(unmocked.statusCode == 404, "httpbin answered GET /boards/1 with \(unmocked.statusCode)")
    report(
      "GET /boards/1 answered by the mock: Board(id: 1, title: \"Balsa Fish\") in \(elapsed.shortDescription) "
        + "(httpbin itself says \(unmocked.statusCode))"
    )
    report("GET /uuid on the same networking went to httpbin: \(uuid)")
  }
}
