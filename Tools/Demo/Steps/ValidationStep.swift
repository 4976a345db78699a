import Malibu

/// `validate()` checks the status and the content type; `decode(using:)` turns the body into a `Decodable`. A status
/// outside 2xx rejects the promise with a `NetworkError` that still carries the response.
enum ValidationStep {
  static func run(_ options: DemoOptions) async throws {
    let networking = Networking<HttpbinEndpoint>()

    let (document, elapsed) = try await timed {
      try await networking.request(.slideshow).validate().decode(using: SlideshowDocument.self).value
    }
    let slideshow = document.slideshow
    try expect(slideshow.title == "Sample Slide Show", "GET /json decoded the title \"\(slideshow.title)\"")
    report(
      "GET /json decoded Slideshow(title: \"\(slideshow.title)\", slides: \(slideshow.slides.count)) "
        + "in \(elapsed.shortDescription) via curl"
    )

    do {
      let response = try await networking.request(.status(418)).validate().value
      throw TourFailure("validate() let status \(response.statusCode) through")
    } catch let error as NetworkError {
      try expect(error.code == .unacceptableStatusCode, "GET /status/418 failed with \(error), not a status error")
      report(
        "GET /status/418 rejected by validate(): NetworkError code \(error.code), response status \(error.response?.statusCode ?? 0)"
      )
    }
  }
}
