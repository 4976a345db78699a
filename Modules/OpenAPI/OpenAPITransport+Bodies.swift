#if OpenAPI
import Foundation
import HTTPTypes
import MalibuTransport
import OpenAPIRuntime

extension OpenAPITransport {
  /// A Malibu request body that reads `body`: from memory when it may be read again and is small (so that it is
  /// repeatable), otherwise streamed once, pulled chunk by chunk as the transport sends.
  static func requestBody(from body: HTTPBody) async throws -> RequestBody {
    let length: UInt64? =
      switch body.length {
      case .known(let count): UInt64(exactly: count)
      case .unknown: nil
      }
    if body.iterationBehavior == .multiple, let length, length <= UInt64(repeatableBodyLimit) {
      return .data(try await Data(collecting: body, upTo: repeatableBodyLimit))
    }
    return .stream(body.map { Data($0) }, length: length)
  }

  /// An `HTTPBody` that reads the transport's body as the generated code consumes it, once; dropping it stops the
  /// transfer. A response to `HEAD` has none.
  static func responseBody(from body: ResponseBody, method: HTTPRequest.Method) -> HTTPBody? {
    guard method != .head else { return nil }
    let length: HTTPBody.Length = body.expectedLength.map { .known(Int64($0)) } ?? .unknown
    return HTTPBody(body, length: length, iterationBehavior: .single)
  }
}
#endif
