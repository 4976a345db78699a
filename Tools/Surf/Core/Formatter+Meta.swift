public import Malibu

extension Formatter {
  /// `--meta`: one line of the transfer's metrics, in HTTPie's `Elapsed time` style, then `curl -w`'s phases, the
  /// connection and the sizes; a figure the transport did not measure is left out (or `-` for a phase).
  ///
  /// ```
  /// Elapsed time: 0.012345s (dns 0.000120s, connect 0.000310s, tls -, sent 0.000400s, first byte 0.011000s);
  /// HTTP/1.1 127.0.0.1:8080, new connection; 1024 bytes body
  /// ```
  /// - Parameter metrics: The response's metrics; `nil` when the transport measured nothing.
  /// - Returns: The line, ending with a newline.
  public func meta(_ metrics: TransferMetrics?) -> String {
    guard let metrics else { return "\(paint("Elapsed time", .cyan)): unknown (the transport measured nothing)\n" }
    let total = metrics.total.map(Self.seconds) ?? "unknown"
    let phases = [
      ("dns", metrics.nameLookup), ("connect", metrics.connect), ("tls", metrics.secureConnect),
      ("sent", metrics.requestSent), ("first byte", metrics.firstByte),
    ]
    .map { name, time in "\(name) \(time.map(Self.seconds) ?? "-")" }
    var line = "\(paint("Elapsed time", .cyan)): \(total) (\(phases.joined(separator: ", ")))"
    if let redirect = metrics.redirect, redirect > .zero { line += ", redirects \(Self.seconds(redirect))" }
    var connection: [String] = []
    if let version = metrics.httpVersion { connection.append("HTTP/\(version)") }
    if let address = metrics.remoteAddress {
      let host = address.contains(":") ? "[\(address)]" : address
      connection.append(metrics.remotePort.map { "\(host):\($0)" } ?? host)
    }
    var description = connection.joined(separator: " ")
    if let reused = metrics.isReusedConnection {
      description += (description.isEmpty ? "" : ", ") + (reused ? "reused connection" : "new connection")
    }
    if !description.isEmpty { line += "; " + description }
    if let body = metrics.decodedBodyBytes ?? metrics.responseBodyBytes {
      line += "; \(body) bytes body"
      if let wire = metrics.responseBodyBytes, wire != body { line += " (\(wire) on the wire)" }
    }
    return line + "\n"
  }

  /// Seconds with six decimals, as HTTPie prints its elapsed time.
  static func seconds(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    let micro = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    let whole = micro / 1_000_000
    let fraction = String(micro % 1_000_000)
    return "\(whole).\(String(repeating: "0", count: 6 - fraction.count))\(fraction)s"
  }
}
