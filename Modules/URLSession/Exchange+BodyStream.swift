import Foundation
@_spi(Malibu) import MalibuCore
import MalibuTransport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension Exchange {
  /// A new input stream over the request body, for `httpBodyStream` or URLSession's `needNewBodyStream`.
  ///
  /// `nil` when the body is not streamed, when it cannot be read again (a streamed body is read once), or when its
  /// source fails to open — that failure is kept and becomes the error the transfer ends with.
  func makeBodyStream(replay: Bool) -> InputStream? {
    guard case .stream(_, let makeSource) = upload.body, !replay || upload.isReplayable else { return nil }
    let source: any ChunkSource
    do {
      source = try makeSource()
    } catch {
      bodyFailed(error)
      return nil
    }
    let onError: @Sendable (any Error) -> Void = { [weak self] error in self?.bodyFailed(error) }
    #if canImport(FoundationNetworking)
    return BodyInputStream(source: source, onError: onError)
    #else
    return BoundStreamPump.makeStream(source: source, onError: onError)
    #endif
  }

  /// The error that stopped the request body's source, if any.
  var bodyError: (any Error)? { state.withLock { $0.bodyError } }
}
