extension ResponseBody {
  /// The largest body ``discard()`` reads to the end rather than cancels: 16 KiB.
  package static let discardReadLimit = 16 << 10

  /// Lets go of a body that is not handed to anyone, freeing its connection: a small body of known length is read
  /// to the end (the connection can then serve another request), anything else is cancelled.
  package func discard() async {
    if let length = expectedLength, length <= Self.discardReadLimit {
      _ = try? await collect(upTo: Self.discardReadLimit)
    } else {
      cancel()
    }
  }
}
