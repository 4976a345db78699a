internal import Foundation
internal import HTTPTypes
internal import MalibuTransport

extension Mock {
  /// The response this mock gives to `request`, after its delay (or `defaultDelay` when it has none).
  func makeResponse(for request: HTTPRequest, defaultDelay: Double) async throws -> TransportResponse {
    try await MockDelay.sleep(seconds: delay ?? defaultDelay)
    if let error { throw error }
    if case .events(let script) = source {
      let (head, body) = script.response(to: request, head: httpResponse)
      return TransportResponse(head: head, url: request.url, body: body)
    }
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
    if case .events(let script) = source {
      var reply = MockTransport.Reply.events(script, headerFields: httpResponse.headerFields)
      reply.status = httpResponse.status
      return reply
    }
    return MockTransport.Reply(
      status: httpResponse.status,
      headerFields: httpResponse.headerFields,
      body: try loadData()
    )
  }
}
