import Foundation
import HTTPTypes
@_spi(Malibu) import MalibuCore
import MalibuTransport

/// A transport that serves one resource with `Range` and `If-Range` as nginx does (a strong `ETag`; a `206` with
/// `Content-Range`; a `416` past the end; a `200` when the validator no longer matches), records every request, and
/// can cut a body short or answer with a head of its own, for the download tests.
final class RangeServerTransport: Transport {
  struct State {
    var content: Data
    var etag: String? = "\"v1\""
    var lastModified: String?
    /// Cut the next body after this many bytes with `connectionReset`.
    var cutAfter: Int?
    /// Answer the next request with this head and body instead.
    var scripted: (HTTPResponse, Data)?
    var requests: [HTTPRequest] = []
  }

  let state: Locked<State>

  init(content: Data) {
    state = Locked(State(content: content))
  }

  var requests: [HTTPRequest] { state.withLock { $0.requests } }

  func send(_ request: HTTPRequest, body: RequestBody?, options: TransferOptions) async throws -> TransportResponse {
    let (head, data, cut) = state.withLock { state -> (HTTPResponse, Data, Int?) in
      state.requests.append(request)
      defer {
        state.cutAfter = nil
        state.scripted = nil
      }
      if let (head, data) = state.scripted { return (head, data, nil) }
      return (Self.answer(request, state: state), Self.bodyOf(request, state: state), state.cutAfter)
    }
    guard let cut else { return TransportResponse(head: head, url: request.url, body: ResponseBody(data: data)) }
    let chunks = AsyncThrowingStream<Data, any Error> { continuation in
      continuation.yield(data.prefix(cut))
      continuation.finish(throwing: TransportError(code: .connectionReset, message: "cut by the test"))
    }
    return TransportResponse(
      head: head,
      url: request.url,
      body: ResponseBody(chunks: chunks, expectedLength: data.count)
    )
  }

  /// The offset of a `Range: bytes=N-` that `If-Range` lets through, if any.
  private static func rangeStart(_ request: HTTPRequest, state: State) -> Int? {
    guard let range = request.headerFields[.range], range.hasPrefix("bytes="), range.hasSuffix("-"),
      let start = Int(range.dropFirst(6).dropLast())
    else { return nil }
    if let ifRange = request.headerFields[.ifRange], ifRange != state.etag && ifRange != state.lastModified {
      return nil
    }
    return start
  }

  private static func answer(_ request: HTTPRequest, state: State) -> HTTPResponse {
    var fields = HTTPFields()
    if let etag = state.etag { fields[.eTag] = etag }
    if let lastModified = state.lastModified { fields[.lastModified] = lastModified }
    let count = state.content.count
    guard let start = rangeStart(request, state: state) else {
      fields[.contentLength] = "\(count)"
      return HTTPResponse(status: .ok, headerFields: fields)
    }
    guard start < count else {
      fields[.contentRange] = "bytes */\(count)"
      return HTTPResponse(status: .rangeNotSatisfiable, headerFields: fields)
    }
    fields[.contentRange] = "bytes \(start)-\(count - 1)/\(count)"
    fields[.contentLength] = "\(count - start)"
    return HTTPResponse(status: .partialContent, headerFields: fields)
  }

  private static func bodyOf(_ request: HTTPRequest, state: State) -> Data {
    guard let start = rangeStart(request, state: state) else { return state.content }
    return start < state.content.count ? state.content.subdata(in: start..<state.content.count) : Data()
  }
}
