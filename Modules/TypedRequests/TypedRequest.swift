import Foundation
public import HTTPTypes
public import MalibuCore
public import MalibuSerialization

/// A request described as types: what it sends (``parameters`` of any `Encodable` type), what the body decodes into
/// (``RawResource``) and what the caller gets (``FinalResource``). Send it with `Networking.send(_:)`.
///
/// ```swift
/// struct CatImage: Decodable, Sendable {
///   let id: String
///   let url: String
/// }
///
/// struct GetCatImages: TypedRequest {
///   typealias RawResource = [CatImage]
///   var method: HTTPRequest.Method { .get }
///   var path: String { "images/search" }
///   var parameters: [String: String] { ["mime_type": "jpg,png", "limit": "2"] }
/// }
///
/// let cats = try await networking.send(GetCatImages())
/// ```
///
/// It is sent by a networking (`Networking.send(_:)`, `Networking.request(typed:)`) or by a bare transport
/// (`Transport.send(_:baseUrl:options:upTo:)`). Through a networking, the request travels the path of
/// `Networking.request(_:)`: the mode's queue, `beforeEach`, the `middleware` gate,
/// encoding, `preProcessRequest`, the middleware chain (logging, authentication, cookies, cache, ETag, offline store,
/// retry), the interceptors, and the transport or a mock registered for it. Its ``path`` is joined to the
/// networking's `baseUrl` (or is an absolute URL). ``parameters`` go into the query for `GET`, `HEAD` and `DELETE`,
/// and into a body of ``contentType`` otherwise, as `Request(method:resource:body:contentType:)` encodes them.
///
/// The response is then checked with the default rule of `validate()` (a 2xx status, a content type the request
/// accepts), decoded as ``RawResource`` at ``resourceKeyPath`` (or the networking's `resourceKeyPath`) with
/// ``arrayDecoding`` (see `Response.decodeResource(_:decoder:at:arrays:)`), handed to ``finalize(raw:)`` and then to
/// ``postProcess(result:)``. When ``RawResource`` does not decode and ``FallbackResource`` is declared, the fallback is
/// decoded and the request fails with `NetworkError` code `decodedFallback` carrying it (see
/// `NetworkError.fallbackResource(_:)`). Elements a lossy array left out are published to the networking's failure
/// hooks (`NetworkError` code `skippedElements`) while the request succeeds.
public protocol TypedRequest: Sendable {
  /// What ``parameters`` is: any `Encodable & Sendable` type with named fields (a struct or a dictionary) for the
  /// query; anything `Encodable`, arrays included, for a JSON body. ``NoParameters`` when there are none.
  associatedtype Parameters: Encodable & Sendable = NoParameters
  /// What the response body decodes into.
  associatedtype RawResource: Decodable & Sendable
  /// What the caller gets, made from ``RawResource`` by ``finalize(raw:)``; the raw resource itself by default.
  associatedtype FinalResource: Sendable = RawResource
  /// Decoded when ``RawResource`` does not decode; ``NoFallback`` (none) by default.
  associatedtype FallbackResource: Decodable & Sendable = NoFallback
  /// What ``decoder`` is: ``NetworkingDecoder`` (the networking's decoder) by default; `JSONDecoder`,
  /// `MalibuJSONDecoder` or any `ResponseDecoder` when the request names its own.
  associatedtype ResourceDecoder: ResponseDecoder = NetworkingDecoder

  /// The HTTP method.
  var method: HTTPRequest.Method { get }
  /// The path joined to the networking's base URL, or an absolute URL.
  var path: String { get }
  /// The parameters: the query for `GET`, `HEAD` and `DELETE`, the body otherwise; reading them may fail (a query
  /// file that cannot be read, say), which fails the request with `NetworkError` code `encodingFailed`.
  var parameters: Parameters { get throws }
  /// How a body is encoded (methods other than `GET`, `HEAD` and `DELETE`); ``/MalibuCore/ContentType/json`` by default.
  var contentType: ContentType { get }
  /// Header fields of this request; they win over the networking's and the endpoint type's. `[:]` by default.
  var headers: [String: String] { get }
  /// The decoder for ``RawResource`` (and ``FallbackResource``); by default a ``NetworkingDecoder``, which stands for
  /// the networking's `Networking.decoder` (a `MalibuJSONDecoder()` unless set).
  var decoder: ResourceDecoder { get }
  /// The encoder of a body of content type `json` (see `EncodableBody`); `nil`, the default, uses the networking's
  /// `Networking.bodyEncoder`, else Malibu's JSON rules.
  var bodyEncoder: (any RequestBodyEncoder)? { get }
  /// Where the resource sits in the body; `nil`, the default, uses the networking's `resourceKeyPath`.
  var resourceKeyPath: ResourceKeyPath? { get }
  /// How the array at the resource's place is decoded; ``/MalibuSerialization/ArrayDecodingStrategy/strict`` by default.
  var arrayDecoding: ArrayDecodingStrategy { get }
  /// How the request uses the HTTP cache; `useProtocolCachePolicy` by default.
  var cachePolicy: CachePolicy { get }

  /// Makes the final resource from the raw one; the raw resource itself by default when the two types are the same.
  /// - Parameter raw: The decoded body.
  /// - Returns: The final resource.
  /// - Throws: Anything; the request then fails with `NetworkError` code `decodingFailed` carrying the response, the
  ///   error as its cause.
  func finalize(raw: RawResource) async throws -> FinalResource

  /// A last look at the final resource before the caller gets it (to update a cache or a store, say); the result as
  /// it is by default.
  /// - Parameter result: The final resource.
  /// - Returns: What the caller gets.
  func postProcess(result: FinalResource) -> FinalResource

  /// Checks a response and decodes its raw resource. The default (a REST API): the default rule of `validate()`, then
  /// ``RawResource`` at ``resourceKeyPath`` (else `defaultKeyPath`) with ``decoder`` and ``arrayDecoding``, and
  /// ``FallbackResource`` when that fails; ``GraphQLRequest`` reads the reply's `errors` first and decodes inside
  /// `data`.
  /// - Parameters:
  ///   - response: The response.
  ///   - defaultKeyPath: Where the resource sits when the request names no ``resourceKeyPath`` (a networking's
  ///     `resourceKeyPath`).
  /// - Returns: The raw resource, and the elements a lossy array left out of it.
  /// - Throws: `NetworkError`: the codes of `validate()`, `emptyResponse`, `decodingFailed`, `decodedFallback` (carrying
  ///   the fallback resource) or `graphQLErrors`.
  func decodeRaw(
    from response: Response,
    defaultKeyPath: ResourceKeyPath
  ) throws(NetworkError) -> DecodedResource<RawResource>
}

extension TypedRequest {
  /// A JSON body.
  public var contentType: ContentType { .json }
  /// No header fields of its own.
  public var headers: [String: String] { [:] }
  /// The networking's encoder.
  public var bodyEncoder: (any RequestBodyEncoder)? { nil }
  /// The networking's `resourceKeyPath`.
  public var resourceKeyPath: ResourceKeyPath? { nil }
  /// Every element must decode.
  public var arrayDecoding: ArrayDecodingStrategy { .strict }
  /// The protocol's cache policy.
  public var cachePolicy: CachePolicy { .useProtocolCachePolicy }

  /// The result as it is.
  /// - Parameter result: The final resource.
  /// - Returns: `result`.
  public func postProcess(result: FinalResource) -> FinalResource { result }

  /// The `Request` this typed request is sent as: parameters into the query for `GET`, `HEAD` and `DELETE`, into a
  /// body of ``contentType`` otherwise.
  /// - Returns: The request.
  /// - Throws: `NetworkError` code `encodingFailed` when ``parameters`` cannot be read.
  public func makeRequest() throws(NetworkError) -> Request {
    let parameters: Parameters
    do {
      parameters = try self.parameters
    } catch let error as NetworkError {
      throw error
    } catch {
      throw NetworkError(
        code: .encodingFailed,
        message: "the parameters of \(Self.self) could not be read: \(error)",
        underlyingError: error
      )
    }
    let inQuery: Set<HTTPRequest.Method> = [.get, .head, .delete]
    var request: Request
    if parameters is NoParameters {
      request = Request(
        method: method,
        resource: path,
        contentType: inQuery.contains(method) ? .query : contentType,
        headers: headers
      )
    } else {
      request = Request(
        method: method,
        resource: path,
        body: parameters,
        contentType: inQuery.contains(method) ? .query : contentType,
        encoder: bodyEncoder,
        headers: headers
      )
    }
    request.cachePolicy = cachePolicy
    return request
  }
}

extension TypedRequest where ResourceDecoder == NetworkingDecoder {
  /// The networking's decoder.
  public var decoder: NetworkingDecoder { NetworkingDecoder() }
}

extension TypedRequest where FinalResource == RawResource {
  /// The raw resource as it is.
  /// - Parameter raw: The decoded body.
  /// - Returns: `raw`.
  public func finalize(raw: RawResource) async throws -> FinalResource { raw }
}

/// The parameters of a ``TypedRequest`` that sends none.
public struct NoParameters: Encodable, Sendable, Hashable {
  /// No parameters.
  public init() {}
}

extension TypedRequest where Parameters == NoParameters {
  /// No parameters.
  public var parameters: NoParameters { NoParameters() }
}

/// The ``TypedRequest/FallbackResource`` of a request that declares none: it never decodes.
public enum NoFallback: Decodable, Sendable {
  /// Always fails: there is no fallback.
  /// - Parameter decoder: The decoder.
  /// - Throws: `DecodingError.dataCorrupted`.
  public init(from decoder: any Decoder) throws {
    throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "no fallback"))
  }
}

/// The cause of a `NetworkError` with code `decodedFallback`: the fallback resource that decoded, and the error of
/// the resource that did not.
public struct DecodedFallback<Fallback: Sendable>: Error, Sendable {
  /// The fallback resource.
  public let value: Fallback
  /// Why the request's own resource did not decode (`NetworkError` code `decodingFailed`).
  public let primaryError: NetworkError
}

extension NetworkError {
  /// The fallback resource this error carries (code `decodedFallback`), when it is of type `type`.
  ///
  /// ```swift
  /// catch let error as NetworkError where error.code == .decodedFallback {
  ///   if let cat = error.fallbackResource(Cat.self) { print(cat.name) }
  /// }
  /// ```
  /// - Parameter type: The request's `FallbackResource`.
  /// - Returns: The value, or `nil`.
  public func fallbackResource<Fallback: Sendable>(_ type: Fallback.Type = Fallback.self) -> Fallback? {
    (underlyingError as? DecodedFallback<Fallback>)?.value
  }
}
