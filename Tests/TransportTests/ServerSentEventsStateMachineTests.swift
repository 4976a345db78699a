import HTTPTypes
import Testing

@testable import MalibuTransport

/// Every transition of the reconnecting event stream, without a server or a clock.
@Suite("ServerSentEvents.StateMachine")
struct ServerSentEventsStateMachineTests {
  typealias Machine = ServerSentEvents.StateMachine

  private static let events = HTTPResponse(status: .ok, headerFields: [.contentType: "text/event-stream"])
  private static let reset = TransportError(code: .connectionReset, message: "reset")

  private static func isRead(_ action: Machine.Action) -> Bool { if case .read = action { true } else { false } }
  private static func isReconnect(_ action: Machine.Action) -> Bool {
    if case .reconnect = action { true } else { false }
  }
  private static func isStop(_ action: Machine.Action) -> Bool { if case .stop = action { true } else { false } }
  private static func failure(_ action: Machine.Action) -> (any Error)? {
    if case .fail(let error) = action { error } else { nil }
  }

  @Test func theFirstConnectionGoesAtOnceAndIsRead() {
    var machine = Machine(maxAttempts: 2)
    #expect(machine.state == .initial)
    #expect(machine.nextConnection() == .connect(afterWait: false))
    #expect(Self.isRead(machine.connected(Self.events)))
    #expect(machine.state == .streaming(failures: 0))
  }

  @Test func aCleanEndOrADropReconnectsAfterTheWait() {
    var machine = Machine(maxAttempts: 2)
    _ = machine.connected(Self.events)
    #expect(Self.isReconnect(machine.bodyEnded(nil)))
    #expect(machine.state == .reconnecting(failures: 1))
    #expect(machine.nextConnection() == .connect(afterWait: true))
    #expect(Self.isRead(machine.connected(Self.events)))
    #expect(machine.state == .streaming(failures: 1))
    #expect(Self.isReconnect(machine.bodyEnded(Self.reset)))
    #expect(machine.state == .reconnecting(failures: 2))
  }

  @Test func eventsResetTheCountOfFailures() {
    var machine = Machine(maxAttempts: 1)
    _ = machine.connected(Self.events)
    _ = machine.bodyEnded(nil)
    _ = machine.connected(Self.events)
    machine.receivedEvents()
    #expect(machine.state == .streaming(failures: 0))
    #expect(Self.isReconnect(machine.bodyEnded(nil)))
  }

  @Test func afterMaxAttemptsADropFailsAndACleanEndStops() {
    var dropped = Machine(maxAttempts: 1)
    _ = dropped.connected(Self.events)
    _ = dropped.bodyEnded(Self.reset)
    _ = dropped.connected(Self.events)
    #expect((Self.failure(dropped.bodyEnded(Self.reset)) as? TransportError)?.code == .connectionReset)
    #expect(dropped.state == .finished)
    #expect(dropped.nextConnection() == .stop)

    var ended = Machine(maxAttempts: 0)
    _ = ended.connected(Self.events)
    #expect(Self.isStop(ended.bodyEnded(nil)))
    #expect(ended.state == .finished)
  }

  @Test func failedConnectionsCountAndARefusedOneEndsAtOnce() {
    var machine = Machine(maxAttempts: 2)
    #expect(Self.isReconnect(machine.connectFailed(Self.reset, retryable: true)))
    #expect(machine.nextConnection() == .connect(afterWait: true))
    #expect(Self.isReconnect(machine.connectFailed(Self.reset, retryable: true)))
    #expect(Self.failure(machine.connectFailed(Self.reset, retryable: true)) != nil)
    #expect(machine.state == .finished)

    var refused = Machine(maxAttempts: 2)
    let tls = TransportError(code: .tls, message: "bad certificate")
    #expect((Self.failure(refused.connectFailed(tls, retryable: false)) as? TransportError)?.code == .tls)
    #expect(refused.state == .finished)
  }

  @Test func noContentStopsAndAnotherHeadFailsNamingIt() {
    var noContent = Machine(maxAttempts: 2)
    #expect(Self.isStop(noContent.connected(HTTPResponse(status: .noContent))))
    #expect(noContent.state == .finished)

    var unavailable = Machine(maxAttempts: 2)
    let status = unavailable.connected(HTTPResponse(status: .serviceUnavailable))
    #expect((Self.failure(status) as? EventStreamError)?.code == .unexpectedStatus)
    #expect(unavailable.state == .finished)

    var json = Machine(maxAttempts: 2)
    let type = json.connected(HTTPResponse(status: .ok, headerFields: [.contentType: "application/json"]))
    #expect((Self.failure(type) as? EventStreamError)?.code == .unexpectedContentType)
  }

  @Test func cancellationFinishes() {
    var machine = Machine(maxAttempts: 2)
    _ = machine.connected(Self.events)
    machine.cancelled()
    #expect(machine.state == .finished)
    #expect(machine.nextConnection() == .stop)
  }
}
