import Foundation
import HTTPTypes
import MalibuTransport

extension NetworkLogger.Settings {
  /// The redacted request; headers and body only at verbose.
  func record(of request: HTTPRequest, body: RequestBody?) -> LoggedRequest {
    var record = LoggedRequest(method: request.method, url: redactor.redactedURL(of: request))
    record.secrets = redactor.secretValues(of: request)
    guard level >= .verbose else { return record }
    record.headerFields = redactor.redact(request.headerFields)
    if let body {
      let contentType = request.headerFields[.contentType]
      var preview: String?
      if case .data(let data) = body.storage {
        preview = redactor.preview(of: data, contentType: contentType)
      }
      record.body = LoggedBody(length: body.length, contentType: contentType, preview: preview)
    }
    return record
  }

  /// The redacted response; headers only at verbose.
  func record(of response: HTTPResponse, request: LoggedRequest, duration: Duration, length: Int?) -> LoggedResponse {
    LoggedResponse(
      request: request,
      status: response.status,
      headerFields: level >= .verbose ? redactor.redact(response.headerFields) : [:],
      duration: duration,
      length: length
    )
  }
}
