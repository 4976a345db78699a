import Foundation
import Malibu

/// Bodies: a JSON `POST` (the default content type of `.post`) and a `multipart/form-data` upload with a field and a
/// file part, streamed from a temporary file. httpbin's `/post` echoes what it received.
enum UploadStep {
  static func run(_ options: DemoOptions) async throws {
    let networking = Networking<HttpbinEndpoint>()

    let echo = try await networking.request(.createBoard(title: "Balsa", type: 1))
      .validate()
      .decode(using: HttpbinEcho<Board>.self)
      .value
    let contentType = echo.headers["Content-Type"] ?? "none"
    try expect(
      echo.json == Board(title: "Balsa", type: 1),
      "httpbin echoed the JSON body as \(String(describing: echo.json))"
    )
    try expect(contentType.hasPrefix("application/json"), "the JSON post went out as \(contentType)")
    report("POST /post JSON → httpbin echoed Board(title: \"Balsa\", type: 1), sent as \(contentType)")

    let directory = try TemporaryDirectory(prefix: "malibu-demo-upload")
    defer { directory.remove() }
    let file = directory.url.appendingPathComponent("wax.txt")
    let contents = String(repeating: "basecoat, then topcoat\n", count: 40)
    try contents.write(to: file, atomically: true, encoding: .utf8)

    let photo = MultipartFile(url: file, mimeType: "text/plain")
    let (upload, elapsed) = try await timed {
      try await networking.request(.uploadPhoto(title: "Balsa", photo: photo))
        .validate()
        .decode(using: HttpbinEcho<Board>.self)
        .value
    }
    try expect(upload.form?["title"] == "Balsa", "httpbin saw the form fields \(upload.form ?? [:])")
    try expect(upload.files?["photo"] == contents, "httpbin did not get the file part back intact")
    directory.remove()
    try expect(directory.isRemoved, "the temporary file \(file.path) is still there")
    report(
      "POST /post multipart: field title + file part wax.txt (\(contents.utf8.count.byteCount)) → httpbin echoed "
        + "both in \(elapsed.shortDescription); temporary file removed"
    )
  }
}
