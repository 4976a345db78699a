public import Foundation
public import MalibuCore

/// Turns request parameters into a request body.
///
/// Conform to add an encoder of your own and register it for a content type:
///
/// ```swift
/// struct CustomXMLEncoder: ParameterEncoding {
///   func encode(parameters: Parameters) throws -> Data? {
///     parameters.isEmpty ? nil : Data(makeXML(parameters).utf8)
///   }
/// }
/// ParameterEncoderRegistry.shared[.custom("application/xml")] = CustomXMLEncoder()
/// ```
///
/// Only ``encode(parameters:)`` is required. ``encodeBody(parameters:contentType:)`` has a default that wraps it and
/// adds the content type's `Content-Type` header value; implement it yourself to stream a body or to choose the
/// header (a multipart encoder must add its `boundary` parameter).
public protocol ParameterEncoding: Sendable {
  /// The whole body in memory.
  /// - Parameter parameters: The request's parameters.
  /// - Returns: The body, or `nil` when there is no body to send (the built-in encoders return `nil` for empty
  ///   parameters).
  /// - Throws: When a parameter cannot be encoded; the built-in encoders throw `NetworkError` with code
  ///   `NetworkError.Code.unsupportedParameter` naming the parameter's key path.
  func encode(parameters: Parameters) throws -> Data?

  /// The body, in memory or streamed, with its `Content-Type` header value.
  /// - Parameters:
  ///   - parameters: The request's parameters.
  ///   - contentType: The content type the encoder was chosen for; custom encoders registered for several types
  ///     can use it to pick the header.
  /// - Returns: The body and its header, or ``EncodedBody/empty`` when there is nothing to send.
  /// - Throws: Like ``encode(parameters:)``.
  func encodeBody(parameters: Parameters, contentType: ContentType) throws -> EncodedBody
}

extension ParameterEncoding {
  /// The default: ``encode(parameters:)`` in memory, with `contentType.headerValue` as the header.
  /// - Parameters:
  ///   - parameters: The request's parameters.
  ///   - contentType: The content type whose `ContentType.headerValue` becomes the header.
  /// - Returns: The body, or ``EncodedBody/empty`` when ``encode(parameters:)`` returns `nil`.
  /// - Throws: What ``encode(parameters:)`` throws.
  public func encodeBody(parameters: Parameters, contentType: ContentType) throws -> EncodedBody {
    EncodedBody(data: try encode(parameters: parameters), contentType: contentType.headerValue)
  }
}
