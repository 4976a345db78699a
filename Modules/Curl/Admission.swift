/// Which transfers libcurl gets now, and which wait: libcurl is handed no more transfers than its connections can
/// start, per host and in all; the rest wait here, in the order they came, holding no easy handle and no libcurl
/// buffer (libcurl allocates a transfer's receive buffer when the handle is added, before it waits for a connection).
///
/// Pure and synchronous: no libcurl, no clock. ``CurlEngine`` feeds it the events of the loop thread (a transfer
/// arrives, a running one ends, a response tells which protocol a host speaks, a waiting one is cancelled or its total
/// deadline passes, shutdown) and performs what it answers: start a transfer, or fail a waiting one. `Item` is what a
/// waiting transfer is (a ``Job`` in the engine; any value in a test).
///
/// **The capacity rule.** A host that is not known to multiplex takes one transfer per connection:
/// `connectionsPerHost` transfers. A host whose last response came over HTTP/2 (or HTTP/3) carries
/// `streamsPerConnection` transfers on each connection (libcurl's `CURLMOPT_MAX_CONCURRENT_STREAMS`, which the engine
/// sets to the same value): `connectionsPerHost × streamsPerConnection`. In all, each transfer costs a share of a
/// connection: a whole one (`streamsPerConnection` units) on a host that does not multiplex, one stream (1 unit) on a
/// host that does, out of `connections × streamsPerConnection` units. So HTTP/2 fan-out is not throttled to one
/// transfer per connection, and HTTP/1.1 fan-out never gives libcurl more transfers than it can start. A host's first
/// transfers count as HTTP/1.1 until a response says otherwise (libcurl itself cannot know before the first
/// connection is up; with `CURLOPT_PIPEWAIT` it waits for that connection rather than open more). A ticket keeps the
/// cost it was admitted with, so what a transfer returns when it ends is what it took. A limit of `0` is no limit
/// (libcurl's meaning): `connections == 0` and `connectionsPerHost == 0` admit every transfer at once.
///
/// **Order.** A transfer starts at once only when nothing waits; otherwise it queues behind the others. The oldest
/// waiting transfer whose host has room goes first; when the limit in all is what holds it back, no younger one
/// passes it (an HTTP/1.1 transfer, which needs a whole connection, is not starved by a stream of HTTP/2 ones).
/// A host full to its own limit holds back only its own transfers.
///
/// A redirect to another host keeps the ticket of the host the transfer was admitted for: the hop's connection is
/// libcurl's to find (its own per-host limit still applies, and a transfer that waits there holds its handle).
struct Admission<Item> {
  /// The limits, as ``CurlTransport/Configuration`` gives them.
  struct Limits: Equatable {
    /// Connections to all hosts together; `0` for no limit.
    var connections: Int
    /// Connections to one host; `0` for no limit.
    var connectionsPerHost: Int
    /// Concurrent streams on one multiplexed connection (at least 1).
    var streamsPerConnection: Int
  }

  /// Where a transfer connects: its scheme and authority (host and port), as the request names them.
  struct Host: Hashable {
    var scheme: String?
    var authority: String?
  }

  /// What a running transfer holds, and gives back when it ends (``ended(_:)``).
  struct Ticket: Equatable {
    /// The host's place in the table (``unlimited`` when no limit applies).
    var host: Int
    /// Whether the host was known to multiplex when the transfer was admitted: what it costs in all.
    var multiplexed: Bool

    /// The ticket of a transfer admitted without any limit.
    static var unlimited: Ticket { Ticket(host: -1, multiplexed: false) }
  }

  /// What becomes of a transfer that arrives.
  enum Arrival: Equatable {
    /// Start it now.
    case start(Ticket)
    /// It waits: ``admitNext()`` hands it out when there is room.
    case wait
  }

  private struct Waiting {
    var id: UInt64
    var sequence: UInt64
    var deadline: UInt64?
    /// `nil` once cancelled or expired in the middle of the queue (skipped when it reaches the front).
    var item: Item?
  }

  private struct HostState {
    var running = 0
    var multiplexes = false
    /// The waiting transfers in order from `head`; entries before `head` are gone.
    var queue: [Waiting] = []
    var head = 0
    /// How many entries of `queue` still wait.
    var waiting = 0

    var front: Waiting? {
      var index = head
      while index < queue.count {
        if queue[index].item != nil { return queue[index] }
        index += 1
      }
      return nil
    }
  }

  let limits: Limits
  private var index: [Host: Int] = [:]
  private var hosts: [HostState] = []
  /// Places in ``hosts`` whose host was forgotten, for the next new host.
  private var free: [Int] = []
  /// The hosts with transfers waiting.
  private var waitingHosts: [Int] = []
  /// Connection units taken by running transfers (see the capacity rule).
  private var units = 0
  private var sequence: UInt64 = 0
  /// No earlier than the earliest total deadline of a waiting transfer (it may be earlier than any still waiting).
  private(set) var nextDeadline: UInt64?
  /// Transfers running (admitted and not ended).
  private(set) var running = 0
  /// Transfers waiting.
  private(set) var waiting = 0

  /// How many hosts the table keeps before it forgets the idle ones (nothing running, nothing waiting).
  static var hostsKept: Int { 256 }

  init(limits: Limits) {
    self.limits = Limits(
      connections: max(0, limits.connections),
      connectionsPerHost: max(0, limits.connectionsPerHost),
      streamsPerConnection: max(1, limits.streamsPerConnection)
    )
  }

  /// Whether no limit applies: every transfer starts at once and the table stays empty.
  var isUnlimited: Bool { limits.connections == 0 && limits.connectionsPerHost == 0 }

  // MARK: Events

  /// A transfer arrives for `host`, to end by `deadline` if it has one.
  mutating func arrive(_ item: Item, id: UInt64, host: Host, deadline: UInt64?) -> Arrival {
    if isUnlimited {
      running += 1
      return .start(.unlimited)
    }
    let place = place(of: host)
    if waiting == 0 && hasRoom(place) { return .start(admit(place)) }
    sequence += 1
    hosts[place].queue.append(Waiting(id: id, sequence: sequence, deadline: deadline, item: item))
    hosts[place].waiting += 1
    if hosts[place].waiting == 1 { waitingHosts.append(place) }
    waiting += 1
    if let deadline { nextDeadline = min(nextDeadline ?? .max, deadline) }
    return .wait
  }

  /// The oldest waiting transfer that may start now, with its ticket; `nil` when none may. Call it until it answers
  /// `nil` after anything that frees room (``ended(_:)``, ``learned(_:multiplexes:)``) or queues a transfer.
  mutating func admitNext() -> (Item, Ticket)? {
    guard waiting > 0 else { return nil }
    var best: (place: Int, sequence: UInt64)?
    for place in waitingHosts where !isFullToItsOwnLimit(place) {
      guard let front = hosts[place].front else { continue }
      if best == nil || front.sequence < best!.sequence { best = (place, front.sequence) }
    }
    guard let best, hasRoomInAll(best.place) else { return nil }
    guard let item = pop(best.place) else { return nil }
    return (item, admit(best.place))
  }

  /// A running transfer ended: its ticket's room is free.
  mutating func ended(_ ticket: Ticket) {
    running -= 1
    guard ticket.host >= 0 else { return }
    units -= cost(multiplexed: ticket.multiplexed)
    hosts[ticket.host].running -= 1
  }

  /// A response on `ticket`'s host came over a protocol that multiplexes (HTTP/2, HTTP/3) or one that does not.
  mutating func learned(_ ticket: Ticket, multiplexes: Bool) {
    guard ticket.host >= 0 else { return }
    hosts[ticket.host].multiplexes = multiplexes
  }

  /// The waiting transfer `id` leaves the queue (it was cancelled); `nil` when none waits with that id.
  mutating func cancel(_ id: UInt64) -> Item? {
    guard waiting > 0 else { return nil }
    for place in waitingHosts {
      let host = hosts[place]
      for position in host.head..<host.queue.count where host.queue[position].id == id {
        guard let item = host.queue[position].item else { return nil }
        forget(at: position, of: place)
        compact(place)
        return item
      }
    }
    return nil
  }

  /// The waiting transfers whose total deadline is `now` or past leave the queue, in order: they fail with a total
  /// timeout.
  mutating func expire(now: UInt64) -> [Item] {
    guard let nextDeadline, now >= nextDeadline else { return [] }
    var expired: [Item] = []
    var earliest = UInt64.max
    for place in waitingHosts {
      for position in hosts[place].head..<hosts[place].queue.count {
        guard let item = hosts[place].queue[position].item, let deadline = hosts[place].queue[position].deadline
        else { continue }
        if deadline <= now {
          expired.append(item)
          forget(at: position, of: place)
        } else {
          earliest = min(earliest, deadline)
        }
      }
      compact(place)
    }
    self.nextDeadline = earliest == .max ? nil : earliest
    return expired
  }

  /// Every waiting transfer leaves the queue, in the order it came (shutdown).
  mutating func removeAll() -> [Item] {
    var all: [(UInt64, Item)] = []
    for place in waitingHosts {
      for entry in hosts[place].queue[hosts[place].head...] {
        if let item = entry.item { all.append((entry.sequence, item)) }
      }
      hosts[place].queue = []
      hosts[place].head = 0
      hosts[place].waiting = 0
    }
    waitingHosts = []
    waiting = 0
    nextDeadline = nil
    return all.sorted { $0.0 < $1.0 }.map(\.1)
  }

  // MARK: Helpers

  /// What a transfer costs in all, in connection units.
  private func cost(multiplexed: Bool) -> Int {
    multiplexed ? 1 : limits.streamsPerConnection
  }

  private func isFullToItsOwnLimit(_ place: Int) -> Bool {
    guard limits.connectionsPerHost > 0 else { return false }
    let host = hosts[place]
    let capacity = limits.connectionsPerHost * (host.multiplexes ? limits.streamsPerConnection : 1)
    return host.running >= capacity
  }

  private func hasRoomInAll(_ place: Int) -> Bool {
    guard limits.connections > 0 else { return true }
    return units + cost(multiplexed: hosts[place].multiplexes) <= limits.connections * limits.streamsPerConnection
  }

  private func hasRoom(_ place: Int) -> Bool {
    !isFullToItsOwnLimit(place) && hasRoomInAll(place)
  }

  private mutating func admit(_ place: Int) -> Ticket {
    let multiplexed = hosts[place].multiplexes
    running += 1
    units += cost(multiplexed: multiplexed)
    hosts[place].running += 1
    return Ticket(host: place, multiplexed: multiplexed)
  }

  /// Takes the front transfer of a host's queue.
  private mutating func pop(_ place: Int) -> Item? {
    while hosts[place].head < hosts[place].queue.count {
      let position = hosts[place].head
      hosts[place].head += 1
      if let item = hosts[place].queue[position].item {
        forget(at: position, of: place)
        compact(place)
        return item
      }
    }
    compact(place)
    return nil
  }

  /// Forgets a waiting entry in the middle of a host's queue (``compact(_:)`` follows).
  private mutating func forget(at position: Int, of place: Int) {
    hosts[place].queue[position].item = nil
    waiting -= 1
    hosts[place].waiting -= 1
  }

  /// Frees a host's queue once nothing waits in it, or its gone front once it is most of it; takes the host off the
  /// waiting list when nothing waits.
  private mutating func compact(_ place: Int) {
    if hosts[place].waiting == 0 {
      hosts[place].queue.removeAll(keepingCapacity: hosts[place].queue.count <= 1024)
      hosts[place].head = 0
      if let listed = waitingHosts.firstIndex(of: place) { waitingHosts.remove(at: listed) }
    } else if hosts[place].head >= 64 && hosts[place].head * 2 >= hosts[place].queue.count {
      hosts[place].queue.removeFirst(hosts[place].head)
      hosts[place].head = 0
    }
  }

  /// The host's place in the table, adding it (and, past ``hostsKept`` hosts, forgetting the idle ones first).
  private mutating func place(of host: Host) -> Int {
    if let place = index[host] { return place }
    if index.count >= Self.hostsKept {
      for (key, place) in index where hosts[place].running == 0 && hosts[place].waiting == 0 {
        index[key] = nil
        free.append(place)
      }
    }
    let state = HostState()
    let place: Int
    if let reused = free.popLast() {
      hosts[reused] = state
      place = reused
    } else {
      hosts.append(state)
      place = hosts.count - 1
    }
    index[host] = place
    return place
  }
}
