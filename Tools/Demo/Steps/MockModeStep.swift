import Malibu

/// `mockMode = .mocksOnly`: registered mocks answer, and a request without one fails with `missingMock` instead of
/// going to the network.
enum MockModeStep {
  static func run(_ options: DemoOptions) async throws {
    let previews = Networking<HttpbinEndpoint>()
    previews.mockMode = .mocksOnly
    previews.register(mock: Mock(json: ["id": 7, "title": "Preview", "type": 1]), for: .board(id: 7))

    let board = try await previews.request(.board(id: 7)).validate().decode(using: Board.self).value
    try expect(board == Board(id: 7, title: "Preview", type: 1), "the registered mock answered \(board)")
    report("mockMode .mocksOnly: GET /boards/7 answered by its registered mock: \(board.title)")

    let rejection = await failure(of: previews.request(.uuid))
    guard let error = rejection as? NetworkError, error.code == .missingMock else {
      throw TourFailure("an unmocked request under .mocksOnly ended with \(String(describing: rejection))")
    }
    report("GET /uuid has no mock → NetworkError \(error.code): \(error.message)")
  }
}
