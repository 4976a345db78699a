import Foundation
import HTTPTypes
import MalibuCore
import MalibuSerialization
import Testing

/// A response with the given body, status, `Content-Type` and request method.
func makeResponse(
  _ body: [UInt8],
  status: Int = 200,
  contentType: String? = nil,
  method: HTTPRequest.Method = .get
) -> Response {
  var headers = HTTPFields()
  if let contentType { headers[.contentType] = contentType }
  return Response(
    data: Data(body),
    status: HTTPResponse.Status(code: status),
    headers: headers,
    request: HTTPRequest(method: method, scheme: "http", authority: "127.0.0.1:8080", path: "/boards")
  )
}

/// A response whose body is the UTF-8 of `text`.
func makeResponse(
  text: String,
  status: Int = 200,
  contentType: String? = "application/json",
  method: HTTPRequest.Method = .get
) -> Response {
  makeResponse(Array(text.utf8), status: status, contentType: contentType, method: method)
}

/// Runs `body`, expecting a ``NetworkError`` with `code` that carries `response`; returns the error.
@discardableResult
func expectNetworkError<T>(
  _ code: NetworkError.Code,
  response: Response,
  sourceLocation: SourceLocation = #_sourceLocation,
  _ body: () throws(NetworkError) -> T
) -> NetworkError? {
  do {
    let value = try body()
    Issue.record("expected NetworkError.\(code), got the value \(value)", sourceLocation: sourceLocation)
    return nil
  } catch {
    #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    #expect(error.response?.data == response.data, sourceLocation: sourceLocation)
    #expect(error.response?.status == response.status, sourceLocation: sourceLocation)
    return error
  }
}

/// A JSON value with equality, to compare what the serializers return against expectations.
indirect enum JSON: Equatable, Sendable, CustomTestStringConvertible {
  case int(Int)
  case double(Double)
  case bool(Bool)
  case string(String)
  case null
  case array([JSON])
  case object([String: JSON])

  /// The tree for a value returned by a serializer; `nil` when a value has a type outside the documented set.
  init?(_ value: any Sendable) {
    switch value {
    case let value as Int: self = .int(value)
    case let value as Double: self = .double(value)
    case let value as Bool: self = .bool(value)
    case let value as String: self = .string(value)
    case is JSONNull: self = .null
    case let values as [any Sendable]:
      var items: [JSON] = []
      for value in values {
        guard let item = JSON(value) else { return nil }
        items.append(item)
      }
      self = .array(items)
    case let values as [String: any Sendable]:
      var members: [String: JSON] = [:]
      for (key, value) in values {
        guard let member = JSON(value) else { return nil }
        members[key] = member
      }
      self = .object(members)
    default: return nil
    }
  }

  var testDescription: String {
    switch self {
    case .int(let value): return "Int(\(value))"
    case .double(let value): return "Double(\(value))"
    case .bool(let value): return "\(value)"
    case .string(let value): return "\"\(value)\""
    case .null: return "null"
    case .array(let values): return "[" + values.map(\.testDescription).joined(separator: ", ") + "]"
    case .object(let values):
      return "{" + values.keys.sorted().map { "\($0): \(values[$0]!.testDescription)" }.joined(separator: ", ") + "}"
    }
  }
}

/// The single element of a one-element JSON array body.
func singleElement(of json: String) throws -> JSON {
  let array = try makeResponse(text: json).toJsonArray()
  try #require(array.count == 1)
  return try #require(JSON(array[0]))
}
