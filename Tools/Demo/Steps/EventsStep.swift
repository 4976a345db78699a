import Foundation
import Malibu
import Synchronization

/// Server-sent events against the fault server (`Tools/servers/faults.py`, started here): an LLM-style completion
/// (a POST, typed events decoded from JSON, ending at `[DONE]`) printed as it arrives, then notifications whose
/// connection drops mid-event and resume with `Last-Event-ID` after the server's `retry`.
enum EventsStep {
  static func run(_ options: DemoOptions) async throws {
    let directory = try TemporaryDirectory(prefix: "malibu-demo-events")
    defer { directory.remove() }
    let port = try LoopbackPort.free()
    ServiceAddresses.events = "http://127.0.0.1:\(port)"
    let server = try HttpbinServer.startFaults(port: port, options: options, directory: directory.url)
    defer { server.stop() }
    let witness = LastEventIDWitness(base: CurlTransport())
    let networking = Networking<EventsEndpoint>(transport: .custom(witness))
    try await waitUntilUp(networking, server: server)

    // 1. A completion: each `data: {"text": …}` event decoded as it arrives, until `data: [DONE]`.
    let start = ContinuousClock.now
    var answer = ""
    var count = 0
    var firstAfter: Duration?
    FileHandle.standardOutput.write(Data("  … ".utf8))
    for try await event in networking.events(.complete(prompt: "Name three sharks"), as: CompletionChunk.self) {
      guard let chunk = event.value else { throw TourFailure("an undecodable event: \(event.event.data)") }
      firstAfter = firstAfter ?? ContinuousClock.now - start
      FileHandle.standardOutput.write(Data(chunk.text.utf8))
      answer += chunk.text
      count += 1
    }
    FileHandle.standardOutput.write(Data("\n".utf8))
    try expect(answer.hasSuffix("whale shark."), "the completion ended with \(answer.suffix(20))")
    report(
      "POST /events/completion: \(count) typed events as they arrived (the first after "
        + "\((firstAfter ?? .zero).shortDescription), all in \((ContinuousClock.now - start).shortDescription)), "
        + "ended at [DONE]"
    )

    // 2. Notifications: the connection drops after event 2; the sequence waits the server's `retry: 300` and
    //    reconnects with `Last-Event-ID: 2`; the next clean end reconnects with 3 and gets 204, the end.
    let reconnection = EventReconnection(delay: .seconds(1), maxAttempts: 3)
    let notified = ContinuousClock.now
    var seen: [String] = []
    for try await event in networking.events(.notifications, reconnection: reconnection) {
      let sent = witness.sent.last ?? nil
      say(
        "    event id \(event.id) \"\(event.data)\" at \((ContinuousClock.now - notified).shortDescription) "
          + "(connection \(witness.sent.count), Last-Event-ID sent: \(sent ?? "none"))"
      )
      seen.append(event.data)
    }
    let sent = witness.sent.map { $0 ?? "none" }
    try expect(seen == ["one", "two", "three"], "the notifications were \(seen)")
    try expect(sent == ["none", "2", "3"], "the connections sent Last-Event-ID \(sent)")
    report(
      "GET /events: dropped mid-event after id 2, reconnected after retry: 300 with Last-Event-ID 2, "
        + "then 3 → 204, the end (\(sent.count) connections, \((ContinuousClock.now - notified).shortDescription))"
    )
  }

  /// Asks for `/ok` until the server answers; fails when it exits or 20 s pass.
  private static func waitUntilUp(_ networking: Networking<EventsEndpoint>, server: HttpbinServer) async throws {
    let start = ContinuousClock.now
    while ContinuousClock.now - start < .seconds(20) {
      guard server.isRunning else { throw TourFailure("the fault server exited:\n\(server.outputTail())") }
      if let response = try? await networking.request(.ok).value, response.statusCode == 200 { return }
      try await Task.sleep(for: .milliseconds(100))
    }
    throw TourFailure("the fault server did not answer on port \(server.port) within 20 s:\n\(server.outputTail())")
  }
}

/// A transport that notes the `Last-Event-ID` of every request for `/events` it sends, then hands it to `base`.
final class LastEventIDWitness: Transport {
  private let base: any Transport
  private let ids = Mutex<[String?]>([])

  init(base: any Transport) {
    self.base = base
  }

  /// The `Last-Event-ID` of each request for `/events`, in order (`nil`: none).
  var sent: [String?] { ids.withLock { $0 } }

  func send(_ request: HTTPRequest, body: RequestBody?, options: TransferOptions) async throws -> TransportResponse {
    if request.path == "/events" {
      ids.withLock { $0.append(request.headerFields[HTTPField.Name("Last-Event-ID")!]) }
    }
    return try await base.send(request, body: body, options: options)
  }
}
