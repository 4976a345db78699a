import HTTPTypes
public import MalibuCore

extension Response {
  /// Whether this response has no body by definition, so that every serializer gives an empty value without
  /// looking at `Response.data`.
  ///
  /// `true` for the status codes `204 No Content` and `205 Reset Content`, and for any response to a `HEAD`
  /// request (read from `Response.request`, the request as it was sent). For such a response:
  ///
  /// | Serializer | Result |
  /// |---|---|
  /// | ``toData()`` | `Data()` |
  /// | ``toString(encoding:)`` | `""` |
  /// | ``toJsonArray()`` | `[]` |
  /// | ``toJsonDictionary()`` | `[:]` |
  /// | ``decode(_:decoder:)`` | ``EmptyBodyDecodable/emptyBodyValue`` when the type conforms to ``EmptyBodyDecodable`` (``EmptyResponse``, `Optional`), otherwise `NetworkError.Code.emptyResponse` |
  ///
  /// Any bytes a broken server or a mock put in such a response are ignored. Every other response whose body
  /// is empty gives `Data()` and `""`, and `NetworkError.Code.emptyResponse` for JSON and
  /// `Decodable`.
  public var hasEmptyBodyByDefinition: Bool {
    status.code == 204 || status.code == 205 || request.method == .head
  }
}
