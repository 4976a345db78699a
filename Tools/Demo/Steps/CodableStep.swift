import Malibu

/// Any `Encodable & Sendable` value is a request body (`Request.post(_:body:)`), JSON by default. A request can change
/// its own copy of the transfer options: here a 1 s total timeout on an answer that takes 3 s, after which the same
/// networking serves the next request as ever.
enum CodableStep {
  static func run(_ options: DemoOptions) async throws {
    let networking = Networking<HttpbinEndpoint>()

    let board = Board(title: "Balsa Fish", type: 2)
    let echo = try await networking.request(.anything(board)).validate()
      .decode(using: HttpbinEcho<Board>.self).value
    try expect(echo.json == board, "POST /anything echoed \(String(describing: echo.json))")
    let contentType = echo.headers["Content-Type"] ?? "none"
    report("POST /anything with body Board(title: \"Balsa Fish\", type: 2) (\(contentType)) echoed back equal")

    let (rejection, elapsed) = await timed {
      await failure(of: networking.request(.delay(seconds: 3)) { options in options.timeouts.total = .seconds(1) })
    }
    guard let error = rejection as? NetworkError, error.code == .timedOut else {
      throw TourFailure("GET /delay/3 with a 1 s timeout ended with \(String(describing: rejection))")
    }
    try expect(elapsed < .seconds(2.5), "the 1 s timeout took \(elapsed.shortDescription)")
    let cause =
      (error.underlyingError as? TransportError)?.code.description ?? "\(String(describing: error.underlyingError))"
    let (next, nextElapsed) = try await timed { try await networking.request(.uuid).validate().value }
    report(
      "GET /delay/3 with options.timeouts.total = 1 s → NetworkError \(error.code) (\(cause)) after "
        + "\(elapsed.shortDescription); then GET /uuid: \(next.statusCode) in \(nextElapsed.shortDescription)"
    )
  }
}
