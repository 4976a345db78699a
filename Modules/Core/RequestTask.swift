public import Foundation

/// What kind of transfer a request is, and where its body comes from.
public enum RequestTask: Hashable, Sendable {
  /// A plain request: the body, if any, is encoded from the parameters according to the content type.
  case data
  /// An upload of the given bytes, sent as the body as they are.
  case uploadData(Data)
  /// An upload of the file at the given URL, streamed from disk.
  case uploadFile(URL)
  /// An upload of the parameters as a `multipart/form-data` body.
  case uploadMultipart
  /// A body encoded from an `Encodable` value by the request's content type (see ``EncodableBody``); the request's
  /// parameters then go into the URL query.
  case encodable(EncodableBody)
}
