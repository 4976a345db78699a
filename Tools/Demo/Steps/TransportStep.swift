import Malibu

/// The same request through the two transports: `.curl` (the default on every platform) and `.urlSession`.
/// Everything above the transport — endpoint, validation, decoding — is the same code.
enum TransportStep {
  static func run(_ options: DemoOptions) async throws {
    let transports: [(name: String, kind: TransportKind)] = [("curl", .curl), ("URLSession", .urlSession)]
    for (name, kind) in transports {
      let networking = Networking<HttpbinEndpoint>(transport: kind)
      let (response, elapsed) = try await timed { try await networking.request(.slideshow).validate().value }
      let document = try response.decode(SlideshowDocument.self)
      try expect(document.slideshow.title == "Sample Slide Show", "\(name) decoded \"\(document.slideshow.title)\"")
      report(
        "GET /json via \(name): \(response.statusCode), \(response.data.count.byteCount), "
          + "\"\(document.slideshow.title)\" in \(elapsed.shortDescription)"
      )
    }
  }
}
