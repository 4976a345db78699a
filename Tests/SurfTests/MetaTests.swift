import Malibu
import SurfCore
import Testing

/// `surf --meta`: the line of the transfer's timings.
@Suite struct MetaTests {
  static let plain = Formatter(pretty: Pretty(colors: false, format: false))

  static let curl = TransferMetrics(
    nameLookup: .microseconds(120),
    connect: .microseconds(310),
    requestSent: .microseconds(400),
    firstByte: .milliseconds(11),
    total: .microseconds(12_345),
    redirect: .zero,
    isReusedConnection: false,
    httpVersion: "1.1",
    remoteAddress: "127.0.0.1",
    remotePort: 8080,
    responseBodyBytes: 300,
    decodedBodyBytes: 1024
  )

  static let cases: [(TransferMetrics?, String)] = [
    (
      curl,
      "Elapsed time: 0.012345s (dns 0.000120s, connect 0.000310s, tls -, sent 0.000400s, first byte 0.011000s);"
        + " HTTP/1.1 127.0.0.1:8080, new connection; 1024 bytes body (300 on the wire)\n"
    ),
    (
      TransferMetrics(
        firstByte: .seconds(2),
        total: .milliseconds(2500),
        redirect: .milliseconds(500),
        isReusedConnection: true,
        httpVersion: "2",
        remoteAddress: "::1",
        remotePort: 443
      ),
      "Elapsed time: 2.500000s (dns -, connect -, tls -, sent -, first byte 2.000000s), redirects 0.500000s;"
        + " HTTP/2 [::1]:443, reused connection\n"
    ),
    // What URLSessionTransport measures on Linux.
    (
      TransferMetrics(firstByte: .microseconds(900), total: .milliseconds(1), redirect: .zero, decodedBodyBytes: 5),
      "Elapsed time: 0.001000s (dns -, connect -, tls -, sent -, first byte 0.000900s); 5 bytes body\n"
    ),
    (nil, "Elapsed time: unknown (the transport measured nothing)\n"),
  ]

  @Test(arguments: cases)
  func metaLine(_ metrics: TransferMetrics?, _ expected: String) {
    #expect(Self.plain.meta(metrics) == expected)
  }
}
