import Testing

@testable import MalibuCurl

/// The admission of transfers to libcurl by the room its connections have, driven event by event without libcurl or a
/// server.
@Suite struct AdmissionTests {
  typealias Machine = Admission<String>

  static let a = Machine.Host(scheme: "http", authority: "a.test")
  static let b = Machine.Host(scheme: "http", authority: "b.test")

  /// A machine with these limits (`streams` per multiplexed connection).
  func machine(connections: Int, perHost: Int, streams: Int = 100) -> Machine {
    Machine(limits: .init(connections: connections, connectionsPerHost: perHost, streamsPerConnection: streams))
  }

  /// Arrivals of `names` for `host`, with ids from `firstID`: the tickets of those that start (`nil` for one that
  /// waits).
  func arrive(
    _ names: [String],
    at host: Machine.Host,
    firstID: UInt64 = 1,
    deadline: UInt64? = nil,
    in machine: inout Machine
  ) -> [Machine.Ticket?] {
    names.enumerated().map { offset, name in
      switch machine.arrive(name, id: firstID + UInt64(offset), host: host, deadline: deadline) {
      case .start(let ticket): ticket
      case .wait: nil
      }
    }
  }

  /// Every transfer `admitNext()` hands out now, in order.
  func admitAll(_ machine: inout Machine) -> [String] {
    var names: [String] = []
    while let (name, _) = machine.admitNext() { names.append(name) }
    return names
  }

  // MARK: HTTP/1.1

  @Test func aHostNotKnownToMultiplexGetsOneTransferPerConnectionAndTheRestWaitInOrder() throws {
    var machine = machine(connections: 256, perHost: 2)
    let tickets = arrive(["1", "2", "3", "4", "5"], at: Self.a, in: &machine)
    #expect(tickets.map { $0 != nil } == [true, true, false, false, false])
    #expect(machine.running == 2)
    #expect(machine.waiting == 3)
    #expect(admitAll(&machine).isEmpty)

    machine.ended(try #require(tickets[1]))
    #expect(admitAll(&machine) == ["3"])
    machine.ended(try #require(tickets[0]))
    #expect(admitAll(&machine) == ["4"])
    #expect(machine.running == 2)
    #expect(machine.waiting == 1)
  }

  @Test func aNewArrivalQueuesBehindTheWaitingOnesEvenWhenRoomWasJustFreed() throws {
    var machine = machine(connections: 0, perHost: 1)
    let tickets = arrive(["1", "2"], at: Self.a, in: &machine)
    machine.ended(try #require(tickets[0]))
    // "2" waits for the room "1" just freed: "3", coming later, must not take it.
    #expect(arrive(["3"], at: Self.a, firstID: 3, in: &machine) == [nil])
    #expect(admitAll(&machine) == ["2"])
  }

  @Test func aFullHostHoldsBackOnlyItsOwnTransfers() {
    var machine = machine(connections: 256, perHost: 1)
    _ = arrive(["a1", "a2"], at: Self.a, in: &machine)
    // Something waits, so "b1" queues too; but its host has room and it starts at the next admission.
    #expect(arrive(["b1"], at: Self.b, firstID: 3, in: &machine) == [nil])
    #expect(admitAll(&machine) == ["b1"])
    #expect(machine.waiting == 1)
  }

  // MARK: HTTP/2

  @Test func aHostKnownToMultiplexGetsConnectionsTimesStreams() throws {
    var machine = machine(connections: 256, perHost: 2, streams: 3)
    let tickets = arrive(["1", "2", "3", "4", "5", "6", "7", "8"], at: Self.a, in: &machine)
    #expect(machine.running == 2)
    // The first response came over HTTP/2: the host takes 2 connections × 3 streams.
    machine.learned(try #require(tickets[0]), multiplexes: true)
    #expect(admitAll(&machine) == ["3", "4", "5", "6"])
    #expect(machine.running == 6)
    #expect(machine.waiting == 2)
    // A multiplexed host's next arrivals start at once while there is room, and carry a multiplexed ticket.
    machine.ended(try #require(tickets[0]))
    #expect(admitAll(&machine) == ["7"])
  }

  @Test func aHostThatStopsMultiplexingShrinksBackToItsConnections() throws {
    var machine = machine(connections: 0, perHost: 1, streams: 4)
    let first = try #require(arrive(["1"], at: Self.a, in: &machine)[0])
    machine.learned(first, multiplexes: true)
    let tickets = arrive(["2", "3", "4"], at: Self.a, firstID: 2, in: &machine)
    #expect(tickets.allSatisfy { $0?.multiplexed == true })
    machine.learned(try #require(tickets[0]), multiplexes: false)
    #expect(arrive(["5"], at: Self.a, firstID: 5, in: &machine) == [nil])
    for ticket in [first] + tickets.compactMap({ $0 }) { machine.ended(ticket) }
    #expect(admitAll(&machine) == ["5"])
  }

  @Test func inAllAMultiplexedTransferCostsAStreamAndAnotherAWholeConnection() throws {
    // One connection in all, of two streams: one HTTP/1.1 transfer, or two HTTP/2 streams.
    var machine = machine(connections: 1, perHost: 0, streams: 2)
    let first = try #require(arrive(["a1"], at: Self.a, in: &machine)[0])
    #expect(arrive(["b1"], at: Self.b, firstID: 2, in: &machine) == [nil])
    machine.learned(first, multiplexes: true)
    // "a1" still holds the whole connection it was admitted with.
    #expect(admitAll(&machine).isEmpty)
    machine.ended(first)
    #expect(admitAll(&machine) == ["b1"])
    #expect(machine.running == 1)
  }

  @Test func theLimitInAllLetsNoYoungerTransferPassAnOlderOne() throws {
    var machine = machine(connections: 1, perHost: 0, streams: 2)
    let a1 = try #require(arrive(["a1"], at: Self.a, in: &machine)[0])
    machine.learned(a1, multiplexes: true)
    machine.ended(a1)
    let a2 = try #require(arrive(["a2"], at: Self.a, firstID: 2, in: &machine)[0])
    #expect(a2.multiplexed)
    // "b1" (HTTP/1.1) needs the whole connection: it waits for "a2", and "a3" (a stream that would fit) waits behind it.
    #expect(arrive(["b1"], at: Self.b, firstID: 3, in: &machine) == [nil])
    #expect(arrive(["a3"], at: Self.a, firstID: 4, in: &machine) == [nil])
    #expect(admitAll(&machine).isEmpty)
    machine.ended(a2)
    #expect(admitAll(&machine) == ["b1"])
  }

  // MARK: No limit

  @Test func noLimitAtAllAdmitsEveryTransfer() {
    var machine = machine(connections: 0, perHost: 0)
    let tickets = arrive((1...1000).map(String.init), at: Self.a, in: &machine)
    #expect(tickets.allSatisfy { $0 == .unlimited })
    #expect(machine.running == 1000)
    #expect(machine.waiting == 0)
    machine.ended(.unlimited)
    #expect(machine.running == 999)
  }

  @Test func noLimitInAllStillKeepsThePerHostLimit() {
    var machine = machine(connections: 0, perHost: 2)
    #expect(arrive(["1", "2", "3"], at: Self.a, in: &machine).map { $0 != nil } == [true, true, false])
  }

  // MARK: Leaving the queue

  @Test func aCancelledWaitingTransferLeavesTheQueueAndTheOrderStays() throws {
    var machine = machine(connections: 0, perHost: 1)
    let tickets = arrive(["1", "2", "3", "4"], at: Self.a, in: &machine)
    #expect(machine.cancel(3) == "3")
    #expect(machine.cancel(3) == nil)
    #expect(machine.cancel(1) == nil)  // running, not waiting: the engine stops it
    #expect(machine.waiting == 2)
    machine.ended(try #require(tickets[0]))
    let admitted = machine.admitNext()
    let (second, ticket) = try #require(admitted)
    #expect(second == "2")
    machine.ended(ticket)
    #expect(admitAll(&machine) == ["4"])
    #expect(machine.waiting == 0)
  }

  @Test func aWaitingTransferPastItsTotalDeadlineLeavesTheQueue() {
    var machine = machine(connections: 0, perHost: 1)
    _ = arrive(["1"], at: Self.a, in: &machine)
    _ = arrive(["2"], at: Self.a, firstID: 2, deadline: 200, in: &machine)
    _ = arrive(["3"], at: Self.a, firstID: 3, deadline: 100, in: &machine)
    _ = arrive(["4"], at: Self.a, firstID: 4, in: &machine)
    #expect(machine.nextDeadline == 100)
    #expect(machine.expire(now: 99).isEmpty)
    #expect(machine.expire(now: 100) == ["3"])
    #expect(machine.nextDeadline == 200)
    #expect(machine.expire(now: 500) == ["2"])
    #expect(machine.nextDeadline == nil)
    #expect(machine.waiting == 1)
  }

  @Test func shutdownTakesEveryWaitingTransferInTheOrderItCame() {
    var machine = machine(connections: 0, perHost: 1)
    _ = arrive(["a1", "a2"], at: Self.a, in: &machine)
    _ = arrive(["b1", "b2"], at: Self.b, firstID: 3, in: &machine)
    _ = arrive(["a3"], at: Self.a, firstID: 5, in: &machine)
    #expect(machine.removeAll() == ["a2", "b1", "b2", "a3"])
    #expect(machine.waiting == 0)
    #expect(machine.admitNext() == nil)
  }

  @Test func aLongQueueDrainsInOrder() throws {
    var machine = machine(connections: 0, perHost: 1)
    let names = (0..<2000).map(String.init)
    let first = try #require(arrive(names, at: Self.a, in: &machine)[0])
    var ticket = first
    var admitted: [String] = []
    while true {
      machine.ended(ticket)
      guard let (name, next) = machine.admitNext() else { break }
      admitted.append(name)
      ticket = next
    }
    #expect(admitted == Array(names.dropFirst()))
    #expect(machine.running == 0)
  }

  @Test func idleHostsAreForgottenPastTheTableSize() throws {
    var machine = machine(connections: 0, perHost: 1)
    for number in 0..<(Machine.hostsKept * 3) {
      let host = Machine.Host(scheme: "http", authority: "h\(number).test")
      let ticket = try #require(arrive(["x"], at: host, firstID: UInt64(number), in: &machine)[0])
      machine.ended(ticket)
    }
    let ticket = try #require(arrive(["y"], at: Self.a, in: &machine)[0])
    #expect(ticket.host < Machine.hostsKept)
  }
}
