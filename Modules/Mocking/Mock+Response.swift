internal import Foundation
internal import HTTPTypes
internal import MalibuTransport

extension Mock {
  /// The response this mock gives to `request`, after its delay (or `defaultDelay` when it has none).
  func makeResponse(for request: HTTPRequest, defaultDelay: Double) async throws -> TransportResponse {
    try await MockDelay.sleep(seconds: delay ?? defaultDelay)
    if let error { throw error }
    let data = try loadData()
    try MockDelay.checkCancellation()
    return TransportResponse(head: httpResponse, url: request.url, body: ResponseBody(data: data))
  }
}

extension Mock {
  /// This mock as a ``MockTransport`` reply, after its delay (or `defaultDelay`); its error is thrown as it is.
  func makeReply(defaultDelay: Double) async throws -> MockTransport.Reply {
    try await MockDelay.sleep(seconds: delay ?? defaultDelay)
    if let error { throw error }
    return MockTransport.Reply(
      status: httpResponse.status,
      headerFields: httpResponse.headerFields,
      body: try loadData()
    )
  }
}
