public import Foundation
@_spi(Malibu) public import MalibuCore
@_spi(Malibu) import MalibuLogging
public import MalibuPromises
import MalibuSerialization
public import MalibuValidation

/// The promise of a response that every request returns.
///
/// Its helpers are `@discardableResult`, so a chain can end with any of them.
///
/// ```swift
/// let promise: NetworkPromise = networking.request(.fetchBoards)
/// promise.validate().decode(using: [Board].self).done { boards in print(boards) }
/// ```
public typealias NetworkPromise = Promise<Response>

extension Promise where Value == Response {
  /// Checks the response with the default rule: a 2xx status, and a content type the request's `Accept` asks for.
  ///
  /// ```swift
  /// networking.request(.fetchBoards).validate().toJsonDictionary()
  /// ```
  /// - Returns: A promise of the same response, rejected with a `NetworkError` carrying the response when the check
  ///   fails.
  @discardableResult
  public func validate() -> NetworkPromise {
    derive(on: nil, passThrough: .failures) { try Self.serialize($0) { try $0.validate() } }
  }

  /// Checks that the status code is one of `statusCodes`.
  ///
  /// ```swift
  /// promise.validate(statusCodes: [200]); promise.validate(statusCodes: 200..<300)
  /// ```
  /// - Parameter statusCodes: The accepted codes: a range, an array, a set.
  /// - Returns: A promise of the same response, rejected with `NetworkError` code `unacceptableStatusCode`.
  @discardableResult
  public func validate(statusCodes: some Sequence<Int>) -> NetworkPromise {
    validate(using: StatusCodeValidator(statusCodes))
  }

  /// Checks that the `Content-Type` matches one of `contentTypes` (media ranges such as `"text/*"`).
  ///
  /// ```swift
  /// promise.validate(contentTypes: ["application/json; charset=utf-8"])
  /// ```
  /// - Parameter contentTypes: The accepted media ranges.
  /// - Returns: A promise of the same response, rejected with `NetworkError` code `unacceptableContentType`,
  ///   `missingContentType` or `invalidContentType`.
  @discardableResult
  public func validate(contentTypes: some Sequence<String>) -> NetworkPromise {
    validate(using: ContentTypeValidator(contentTypes))
  }

  /// Checks the response with a validator of your own.
  ///
  /// ```swift
  /// promise.validate(using: CustomValidator())
  /// ```
  /// - Parameter validator: Any `Validating` value.
  /// - Returns: A promise of the same response, rejected with whatever the validator throws.
  @discardableResult
  public func validate(using validator: some Validating) -> NetworkPromise {
    derive(on: nil, passThrough: .failures) { try Self.serialize($0) { try $0.validate(using: validator) } }
  }

  /// The body as it is.
  /// - Returns: A promise of the response's bytes.
  @discardableResult
  public func toData() -> Promise<Data> {
    derive(on: nil, passThrough: .failures) { try Self.serialize($0) { $0.toData() } }
  }

  /// The body as text, decoded with the response's charset (UTF-8 when it names none) or `encoding`.
  ///
  /// It reads the body whatever the status: without ``validate()`` first, a 404 gives the text of its error page,
  /// and `""` when that body is empty, as any empty body does. To fail on the status instead, validate first; the
  /// error keeps the response, body included:
  ///
  /// ```swift
  /// networking.request(.showBoard(id: 404)).validate().toString()  // rejected: unacceptableStatusCode, status 404
  /// ```
  /// - Parameter encoding: An encoding that overrides the response's charset.
  /// - Returns: A promise of the text (`""` for an empty body), rejected with `NetworkError` code
  ///   `stringDecodingFailed` or `invalidContentType`.
  @discardableResult
  public func toString(encoding: String.Encoding? = nil) -> Promise<String> {
    derive(on: nil, passThrough: .failures) { try Self.serialize($0) { try $0.toString(encoding: encoding) } }
  }

  /// The body as a JSON array: objects `[String: any Sendable]`, arrays `[any Sendable]`, integers `Int`, other
  /// numbers `Double`, `Bool`, `String`.
  /// - Returns: A promise of the array, rejected with `NetworkError` code `jsonSerializationFailed`,
  ///   `unexpectedJSONShape` or `emptyResponse`.
  @discardableResult
  public func toJsonArray() -> Promise<[any Sendable]> {
    derive(on: nil, passThrough: .failures) { try Self.serialize($0) { try $0.toJsonArray() } }
  }

  /// The body as a JSON object, with the value types of ``toJsonArray()``.
  ///
  /// ```swift
  /// networking.request(.showBoard(id: 1)).validate().toJsonDictionary().done { board in print(board["title"]) }
  /// ```
  /// - Returns: A promise of the dictionary, rejected like ``toJsonArray()``.
  @discardableResult
  public func toJsonDictionary() -> Promise<[String: any Sendable]> {
    derive(on: nil, passThrough: .failures) { try Self.serialize($0) { try $0.toJsonDictionary() } }
  }

  /// The body decoded as `type` by the networking's ``Networking/decoder`` (a `MalibuJSONDecoder()` unless set, and
  /// for a response made by hand).
  ///
  /// ```swift
  /// let boards = try await networking.request(.fetchBoards).validate().decode(using: [Board].self).value
  /// ```
  /// - Parameter type: The type to decode.
  /// - Returns: A promise of the value, rejected with `NetworkError` code `decodingFailed` or `emptyResponse`.
  @discardableResult
  @inlinable public func decode<T: Decodable & Sendable>(using type: T.Type = T.self) -> Promise<T> {
    derive(on: nil, passThrough: .failures) { try Self.serialize($0) { try $0.decode(type) } }
  }

  /// The body decoded as `type` by `decoder`: Foundation's `JSONDecoder` with its strategies, a property-list decoder,
  /// any `ResponseDecoder` of your own.
  ///
  /// ```swift
  /// let decoder = JSONDecoder()
  /// decoder.keyDecodingStrategy = .convertFromSnakeCase
  /// let board = try await promise.decode(using: Board.self, decoder: decoder).value
  /// ```
  /// - Parameters:
  ///   - type: The type to decode.
  ///   - decoder: The decoder, for this call alone.
  /// - Returns: A promise of the value, rejected with `NetworkError` code `decodingFailed` or `emptyResponse`.
  @discardableResult
  @inlinable public func decode<T: Decodable & Sendable>(
    using type: T.Type = T.self,
    decoder: some ResponseDecoder
  ) -> Promise<T> {
    derive(on: nil, passThrough: .failures) { try Self.serialize($0) { try $0.decode(type, decoder: decoder) } }
  }

  /// Runs `transform` on the response of `result`; a failure is reported (logged with the request, and published to
  /// the networking's failure hooks) and rethrown.
  ///
  /// Each helper derives its promise with a step that calls this, rather than handing its conversion to `then` as a
  /// value: `then` wrapped it in a closure of its own, and a helper of this kind in another, an allocation each per
  /// promise. Each helper calls `derive` itself, too: a shared generic helper around it (`serializing(_:)`, even
  /// always inlined) had the step adapted once more, one allocation per promise.
  @inlinable @inline(__always) static func serialize<T: Sendable>(
    _ result: Result<Response, any Error>,
    _ transform: (Response) throws -> T
  ) throws -> Derivation<T> {
    let response = try result.get()
    do {
      return .result(.success(try transform(response)))
    } catch {
      reportFailure(error, of: response)
      throw error
    }
  }

  /// Reports a failed check or conversion to the networking the response came from (its logger and failure hooks;
  /// the shared logger for a response made by hand), with the request it belongs to.
  @usableFromInline static func reportFailure(_ error: any Error, of response: Response) {
    (response.failureReporter ?? NetworkLogger.shared).reportFailure(error, of: response)
  }
}
