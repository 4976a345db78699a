import Foundation
import HTTPTypes
import MalibuCore

extension StoredRequest: Codable {
  private enum CodingKeys: String, CodingKey {
    case version, method, resource, url, contentType, customContentType, task, uploadData, uploadFile, body, parameters
    case headers, storePolicy, cachePolicy, sequence
  }

  /// Decodes an entry written by ``encode(to:)``.
  /// - Parameter decoder: The decoder to read from.
  /// - Throws: `DecodingError` when a field is missing or holds an unknown value.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let version = try container.decode(Int.self, forKey: .version)
    guard version == 1 else {
      throw DecodingError.dataCorruptedError(
        forKey: .version,
        in: container,
        debugDescription: "unknown format version \(version)"
      )
    }
    let methodName = try container.decode(String.self, forKey: .method)
    guard let method = HTTPRequest.Method(methodName) else {
      throw DecodingError.dataCorruptedError(forKey: .method, in: container, debugDescription: "bad method")
    }
    self.method = method
    resource = try container.decode(String.self, forKey: .resource)
    url = try container.decodeIfPresent(URL.self, forKey: .url)
    contentType = try Self.decodeContentType(container)
    task = try Self.decodeTask(container)
    parameters = try container.decode([String: ExactParameterValue].self, forKey: .parameters).mapValues(\.value)
    headers = try container.decode([String: String].self, forKey: .headers)
    let store = try container.decode(String.self, forKey: .storePolicy)
    switch store {
    case "offline": storePolicy = .offline
    case "unspecified": storePolicy = .unspecified
    default:
      throw DecodingError.dataCorruptedError(forKey: .storePolicy, in: container, debugDescription: store)
    }
    let cache = try container.decode(String.self, forKey: .cachePolicy)
    guard let cachePolicy = CachePolicy(headerValue: cache) else {
      throw DecodingError.dataCorruptedError(forKey: .cachePolicy, in: container, debugDescription: cache)
    }
    self.cachePolicy = cachePolicy
    sequence = try container.decode(UInt64.self, forKey: .sequence)
  }

  /// Encodes the entry as a versioned JSON object.
  /// - Parameter encoder: The encoder to write to.
  /// - Throws: `EncodingError` from the encoder.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(1, forKey: .version)
    try container.encode(method.rawValue, forKey: .method)
    try container.encode(resource, forKey: .resource)
    try container.encodeIfPresent(url, forKey: .url)
    if contentType.isCustom {
      try container.encode("custom", forKey: .contentType)
      try container.encode(contentType.headerValue ?? "", forKey: .customContentType)
    } else {
      try container.encode(contentType.description, forKey: .contentType)
    }
    switch task {
    case .data: try container.encode("data", forKey: .task)
    case .uploadMultipart: try container.encode("uploadMultipart", forKey: .task)
    case .uploadData(let data):
      try container.encode("uploadData", forKey: .task)
      try container.encode(data, forKey: .uploadData)
    case .uploadFile(let file):
      try container.encode("uploadFile", forKey: .task)
      try container.encode(file, forKey: .uploadFile)
    case .encodable(let body):
      try container.encode("encodable", forKey: .task)
      try container.encode(ExactParameterValue(try body.parameterValue()), forKey: .body)
    }
    try container.encode(parameters.mapValues(ExactParameterValue.init), forKey: .parameters)
    try container.encode(headers, forKey: .headers)
    try container.encode(storePolicy == .offline ? "offline" : "unspecified", forKey: .storePolicy)
    try container.encode(cachePolicy.headerValue, forKey: .cachePolicy)
    try container.encode(sequence, forKey: .sequence)
  }

  private static func decodeContentType(_ container: KeyedDecodingContainer<CodingKeys>) throws -> ContentType {
    let name = try container.decode(String.self, forKey: .contentType)
    switch name {
    case "query": return .query
    case "formURLEncoded": return .formURLEncoded
    case "json": return .json
    case "multipartFormData": return .multipartFormData
    case "custom": return .custom(try container.decode(String.self, forKey: .customContentType))
    default:
      throw DecodingError.dataCorruptedError(forKey: .contentType, in: container, debugDescription: name)
    }
  }

  private static func decodeTask(_ container: KeyedDecodingContainer<CodingKeys>) throws -> RequestTask {
    let name = try container.decode(String.self, forKey: .task)
    switch name {
    case "data": return .data
    case "uploadMultipart": return .uploadMultipart
    case "uploadData": return .uploadData(try container.decode(Data.self, forKey: .uploadData))
    case "uploadFile": return .uploadFile(try container.decode(URL.self, forKey: .uploadFile))
    case "encodable":
      return .encodable(EncodableBody(try container.decode(ExactParameterValue.self, forKey: .body).value))
    default: throw DecodingError.dataCorruptedError(forKey: .task, in: container, debugDescription: name)
    }
  }
}
