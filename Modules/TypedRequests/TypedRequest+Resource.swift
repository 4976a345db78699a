@_spi(Malibu) public import MalibuCore
public import MalibuSerialization
import MalibuValidation

extension TypedRequest {
  /// Checks the response with `validate()`'s default rule and decodes ``RawResource`` at ``resourceKeyPath`` (else
  /// `defaultKeyPath`), or the ``FallbackResource`` when it does not decode (see ``decodeRaw(from:defaultKeyPath:)``).
  /// - Parameters:
  ///   - response: The response.
  ///   - defaultKeyPath: Where the resource sits when the request names no ``resourceKeyPath``.
  /// - Returns: The raw resource, and the elements a lossy array left out of it.
  /// - Throws: `NetworkError`: the codes of `validate()`, `emptyResponse`, `decodingFailed` or `decodedFallback`.
  public func decodeRaw(
    from response: Response,
    defaultKeyPath: ResourceKeyPath
  ) throws(NetworkError) -> DecodedResource<RawResource> {
    _ = try response.validate()
    let keyPath = resourceKeyPath ?? defaultKeyPath
    do {
      return try response.decodeResource(RawResource.self, resolving: decoder, at: keyPath, arrays: arrayDecoding)
    } catch {
      throw decodingFailure(error, of: response, at: keyPath)
    }
  }

  /// The error of a resource that did not decode at `keyPath`: `decodedFallback` carrying the ``FallbackResource``
  /// when one is declared and decodes there, else `decodingFailed` naming both failures; other errors as they are.
  package func decodingFailure(
    _ primary: NetworkError,
    of response: Response,
    at keyPath: ResourceKeyPath
  ) -> NetworkError {
    guard primary.code == .decodingFailed, FallbackResource.self != NoFallback.self else { return primary }
    do {
      let fallback = try response.decodeResource(
        FallbackResource.self,
        resolving: decoder,
        at: keyPath,
        arrays: .strict
      )
      return NetworkError(
        code: .decodedFallback,
        message: "\(RawResource.self) did not decode, and the fallback \(FallbackResource.self) did: "
          + primary.message,
        response: response,
        underlyingError: DecodedFallback(value: fallback.value, primaryError: primary)
      )
    } catch {
      return NetworkError(
        code: .decodingFailed,
        message: "\(primary.message); the fallback did not decode either: \(error.message)",
        response: response,
        underlyingError: primary.underlyingError
      )
    }
  }

  /// The final resource of a response to this request: checked and decoded by ``decodeRaw(from:defaultKeyPath:)``,
  /// then ``finalize(raw:)`` and ``postProcess(result:)``. Elements a lossy array left out are reported to the
  /// response's failure reporter (a networking's failure hooks), as `NetworkError` code `skippedElements`.
  ///
  /// ```swift
  /// let response = Response(data: data, status: head.status, headers: head.headerFields, request: request)
  /// let cats = try await GetCatImages().resource(from: response)
  /// ```
  /// - Parameters:
  ///   - response: The response.
  ///   - defaultKeyPath: Where the resource sits when the request names no ``resourceKeyPath``; the whole body by
  ///     default.
  /// - Returns: The final resource.
  /// - Throws: `NetworkError`, as ``decodeRaw(from:defaultKeyPath:)`` throws, or code `decodingFailed` when
  ///   ``finalize(raw:)`` throws anything but a `NetworkError`.
  public func resource(
    from response: Response,
    defaultKeyPath: ResourceKeyPath = .topLevel
  ) async throws -> FinalResource {
    let decoded = try decodeRaw(from: response, defaultKeyPath: defaultKeyPath)
    if let skipped = decoded.skipped {
      let report = NetworkError.skipped(skipped, of: RawResource.self, in: response)
      response.failureReporter?.reportFailure(report, of: response)
    }
    let final: FinalResource
    do {
      final = try await finalize(raw: decoded.value)
    } catch let error as NetworkError {
      throw error
    } catch {
      throw NetworkError(
        code: .decodingFailed,
        message: "\(Self.self).finalize(raw:) could not make \(FinalResource.self) from \(RawResource.self): \(error)",
        response: response,
        underlyingError: error
      )
    }
    return postProcess(result: final)
  }
}
