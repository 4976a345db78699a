public import Foundation
public import HTTPTypes

/// A complete HTTP response: status, headers and the whole body, with the request that produced it.
public struct Response: Sendable {
  /// The fields of a response.
  private struct Fields: Sendable {
    var data: Data
    var status: HTTPResponse.Status
    var headers: HTTPFields
    var request: HTTPRequest
    var location: ResponseLocation
    var metrics: TransferMetrics?
    var failureReporter: (any ResponseFailureReporting)?
    var defaultDecoder: (any ResponseDecoder)?
  }

  /// The fields, kept behind one reference: a response is handed along promise chains and copied at every step,
  /// and one retain is cheaper than copying five fields.
  private final class Box: Sendable {
    let fields: Fields

    init(_ fields: Fields) {
      self.fields = fields
    }
  }

  private var box: Box

  /// A change replaces the box (copy on write); the getters below read through the box without copying the other fields.
  private var fields: Fields {
    get { box.fields }
    set { box = Box(newValue) }
  }

  /// The body, after content decoding (a gzip body arrives here inflated).
  public var data: Data {
    get { box.fields.data }
    set { fields.data = newValue }
  }
  /// The status, from swift-http-types.
  public var status: HTTPResponse.Status {
    get { box.fields.status }
    set { fields.status = newValue }
  }
  /// The response header fields.
  public var headers: HTTPFields {
    get { box.fields.headers }
    set { fields.headers = newValue }
  }
  /// The request as it was sent (after every hook and middleware).
  public var request: HTTPRequest {
    get { box.fields.request }
    set { fields.request = newValue }
  }
  /// The URL the response came from, after redirects; `nil` when unknown (a mock, say). Parsed when read.
  public var url: URL? {
    get { box.fields.location.url }
    set { fields.location = ResponseLocation(newValue) }
  }

  /// Where the transfer's time went and how many bytes it moved; `nil` when the transport measured nothing (a mock,
  /// a response made by hand, one answered from a cache).
  public var metrics: TransferMetrics? {
    get { box.fields.metrics }
    set { fields.metrics = newValue }
  }

  /// Creates a response.
  /// - Parameters:
  ///   - data: The body.
  ///   - status: The status.
  ///   - headers: The header fields.
  ///   - request: The request that produced it.
  ///   - url: The final URL, after redirects.
  ///   - metrics: The transfer's metrics, if measured.
  public init(
    data: Data,
    status: HTTPResponse.Status,
    headers: HTTPFields,
    request: HTTPRequest,
    url: URL? = nil,
    metrics: TransferMetrics? = nil
  ) {
    self.init(
      data: data,
      status: status,
      headers: headers,
      request: request,
      location: ResponseLocation(url),
      metrics: metrics,
      failureReporter: nil
    )
  }

  /// Creates a response whose failed checks and conversions are reported to `failureReporter` (the networking's
  /// logger, or what reports to the networking's failure hooks as well), decoded by `defaultDecoder` when a
  /// decoding names no decoder.
  package init(
    data: Data,
    status: HTTPResponse.Status,
    headers: HTTPFields,
    request: HTTPRequest,
    location: ResponseLocation,
    metrics: TransferMetrics? = nil,
    failureReporter: (any ResponseFailureReporting)?,
    defaultDecoder: (any ResponseDecoder)? = nil
  ) {
    box = Box(
      Fields(
        data: data,
        status: status,
        headers: headers,
        request: request,
        location: location,
        metrics: metrics,
        failureReporter: failureReporter,
        defaultDecoder: defaultDecoder
      )
    )
  }

  /// Where a failed `validate()`, `toString()` or `decode(using:)` of this response is reported: the networking that
  /// received it (its logger and failure hooks); `nil` for a response made by hand.
  @_spi(Malibu) public var failureReporter: (any ResponseFailureReporting)? {
    get { box.fields.failureReporter }
    set { fields.failureReporter = newValue }
  }

  /// The decoder that decoding this response uses when given none (MalibuSerialization's `decode(_:)` and
  /// `decodeResource(_:at:arrays:)`, and the promise helpers of the facade): the `decoder` of the `Networking` the
  /// response came from; `nil`, for a response made by hand, means a `MalibuJSONDecoder()`.
  public var defaultDecoder: (any ResponseDecoder)? {
    get { box.fields.defaultDecoder }
    set { fields.defaultDecoder = newValue }
  }

  /// The numeric status code, such as `200`.
  public var statusCode: Int { status.code }

  /// The response head (status and header fields) as a swift-http-types value.
  public var httpResponse: HTTPResponse {
    HTTPResponse(status: status, headerFields: headers)
  }
}

/// Reports the failed checks and conversions of a response's promise to the networking it came from: its
/// `NetworkLogger`, and its failure hooks when it has any.
@_spi(Malibu) public protocol ResponseFailureReporting: AnyObject, Sendable {
  /// Reports one failure.
  /// - Parameters:
  ///   - error: The error of the check or conversion.
  ///   - response: The response it happened to.
  func reportFailure(_ error: any Error, of response: Response)
}
