import Foundation
import Malibu

/// `GET /gzip` answers with `Content-Encoding: gzip`; the transport inflates it, so `decode(using:)` sees JSON. With
/// decompression turned off the compressed bytes come through as they are, and `Gzip.inflate` opens them by hand.
enum GzipStep {
  static func run(_ options: DemoOptions) async throws {
    let networking = Networking<HttpbinEndpoint>()
    let (response, elapsed) = try await timed { try await networking.request(.gzip).validate().value }
    let echo = try response.decode(GzipEcho.self)
    try expect(echo.gzipped, "GET /gzip decoded gzipped: false")

    let raw = Networking<HttpbinEndpoint>()
    raw.transferOptions.decompression = .disabled
    let compressed = try await raw.request(.gzip).validate(statusCodes: [200]).value
    let encoding = compressed.headers[.contentEncoding] ?? "none"
    try expect(encoding == "gzip", "with decompression off, Content-Encoding is \(encoding), expected gzip")
    let inflated = try Gzip.inflate(compressed.data)
    let manual = try JSONDecoder().decode(GzipEcho.self, from: inflated)
    try expect(manual.gzipped, "the body inflated by hand decoded gzipped: false")
    report("GET /gzip decoded {gzipped: \(echo.gzipped)} in \(elapsed.shortDescription): inflated by the transport")
    report(
      "with decompression .disabled: \(compressed.data.count.byteCount) gzip on the wire → Gzip.inflate → "
        + "\(inflated.count.byteCount) of JSON, {gzipped: \(manual.gzipped)} again"
    )
  }
}
