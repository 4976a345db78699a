@_spi(Malibu) import MalibuCore
import MalibuTransport

/// Reports one transfer's progress to the caller's handler, monotonic across the hops of a redirect chain.
final class ProgressTracker: Sendable {
  private let handler: (@Sendable (TransferProgress) -> Void)?
  private let state = Locked(TransferProgress(uploaded: 0, uploadTotal: nil, downloaded: 0, downloadTotal: nil))

  init(_ handler: (@Sendable (TransferProgress) -> Void)?) {
    self.handler = handler
  }

  var isActive: Bool { handler != nil }

  /// Request-body bytes sent so far in the current hop, and how many there are when known.
  func sent(_ total: Int64, of expected: Int64?) {
    report { progress in
      progress.uploaded = max(progress.uploaded, total)
      if let expected, expected > 0 { progress.uploadTotal = max(progress.uploadTotal ?? 0, expected) }
    }
  }

  /// Response-body bytes received so far in the final hop, and how many were announced when known.
  func received(_ total: Int64, of expected: Int64?) {
    report { progress in
      progress.downloaded = max(progress.downloaded, total)
      if let expected { progress.downloadTotal = max(progress.downloadTotal ?? 0, expected) }
    }
  }

  private func report(_ change: (inout TransferProgress) -> Void) {
    guard let handler else { return }
    let (changed, value) = state.withLock { progress -> (Bool, TransferProgress) in
      let before = progress
      change(&progress)
      return (progress != before, progress)
    }
    if changed { handler(value) }
  }
}
