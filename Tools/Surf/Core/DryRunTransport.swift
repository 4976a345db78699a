import Foundation
public import Malibu

/// The transport of `--offline`: it sends nothing. The request reaches it through Malibu's whole path
/// (authentication, header fields, body encoding), so the head it is given is the one a real transport would send;
/// it answers `204 No Content` at once, without opening a connection or reading the body, and
/// `Response.request` then holds that head for `surf` to print.
public struct DryRunTransport: Transport {
  /// Creates the transport.
  public init() {}

  /// Answers `204 No Content` without sending anything.
  /// - Parameters:
  ///   - request: The request head, as it would be sent.
  ///   - body: The request body, left unread.
  ///   - options: Unused.
  /// - Returns: An empty `204 No Content` from the request's URL.
  public func send(
    _ request: HTTPRequest,
    body: RequestBody?,
    options: TransferOptions
  ) async throws
    -> TransportResponse
  {
    TransportResponse(head: HTTPResponse(status: .noContent), url: request.url, body: ResponseBody(data: Data()))
  }
}
