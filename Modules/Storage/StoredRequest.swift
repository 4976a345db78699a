public import Foundation
public import HTTPTypes
public import MalibuCore
import MalibuTransport

/// A snapshot of a ``/MalibuCore/Request`` that can be written to disk and turned back into the same request.
///
/// Every field that shapes what is sent is kept: method, resource, content type, task (upload bytes or file URL
/// included), parameters as ``/MalibuCore/ParameterValue`` trees, headers and both policies. ``url`` is the final,
/// endpoint-independent URL when the caller knows it.
///
/// ```swift
/// let stored = try StoredRequest(Request.delete("boards/1", storePolicy: .offline),
///                                url: URL(string: "https://example.com/api/boards/1"))
/// let again: Request = stored.request
/// ```
public struct StoredRequest: Sendable, Hashable {
  /// The HTTP method.
  public var method: HTTPRequest.Method
  /// The resource as written in the request (a path or an absolute URL).
  public var resource: String
  /// The final URL the request was (or would have been) sent to, when known.
  public var url: URL?
  /// Where the parameters go.
  public var contentType: ContentType
  /// The kind of transfer and the source of the body.
  public var task: RequestTask
  /// The parameters, normalised.
  public var parameters: [String: ParameterValue]
  /// The request's own header fields.
  public var headers: [String: String]
  /// The store policy.
  public var storePolicy: StorePolicy
  /// The cache policy.
  public var cachePolicy: CachePolicy
  /// The position in the store: entries are replayed in increasing order. `0` until the entry is saved.
  public var sequence: UInt64

  /// Takes a snapshot of a request.
  /// - Parameters:
  ///   - request: The request.
  ///   - url: The final URL it is sent to, when known; it takes part in the key instead of the resource.
  /// - Throws: ``StorageError`` with code ``StorageError/Code/unsupportedRequest`` when a parameter cannot be
  ///   normalised into a ``/MalibuCore/ParameterValue``, or an `Encodable` body cannot be read back as JSON (its
  ///   ``/MalibuCore/RequestBodyEncoder`` writes a property list, CSV, ...).
  public init(_ request: Request, url: URL? = nil) throws(StorageError) {
    do {
      parameters = try ParameterValue.normalize(request.parameters)
    } catch {
      throw StorageError(
        code: .unsupportedRequest,
        message: "the request's parameters cannot be stored: \(error.message)",
        underlyingError: error
      )
    }
    method = request.method
    resource = request.resource.urlString
    self.url = url
    contentType = request.contentType
    task = try Self.storable(request.task)
    headers = request.headers
    storePolicy = request.storePolicy
    cachePolicy = request.cachePolicy
    sequence = 0
  }

  /// The task as it is kept: an `Encodable` body becomes the tree of the JSON it encodes to (by its own encoder, if
  /// any), so that it can be written to disk and replayed with the same fields.
  private static func storable(_ task: RequestTask) throws(StorageError) -> RequestTask {
    guard case .encodable(let body) = task else { return task }
    if body.value is ParameterValue, body.encoder == nil { return task }
    do {
      let tree = try JSONDecoder().decode(ParameterValue.self, from: try body.jsonData())
      return .encodable(EncodableBody(tree))
    } catch {
      throw StorageError(
        code: .unsupportedRequest,
        message: "the request's body cannot be stored: \(error)",
        underlyingError: error
      )
    }
  }

  /// The request again, ready to be sent. Its resource is ``url`` when known (an absolute URL, so a base URL is
  /// ignored), otherwise ``resource``.
  public var request: Request {
    Request(
      method: method,
      resource: url.map { $0 as any URLStringConvertible } ?? resource,
      contentType: contentType,
      task: task,
      parameters: parameters.mapValues { $0.sendableValue },
      headers: headers,
      storePolicy: storePolicy,
      cachePolicy: cachePolicy
    )
  }

  /// The SHA-256 (hex) of everything that makes up the body and head besides method and URL: content type, task
  /// (with the upload bytes or the file path), parameters and headers, in a canonical form.
  public var bodyDigest: String {
    var canonical = Data()
    canonical.append(contentsOf: Array("content-type:\(contentType.description)\n".utf8))
    switch task {
    case .data: canonical.append(contentsOf: Array("task:data\n".utf8))
    case .uploadMultipart: canonical.append(contentsOf: Array("task:multipart\n".utf8))
    case .uploadFile(let file): canonical.append(contentsOf: Array("task:file:\(file.absoluteString)\n".utf8))
    case .uploadData(let data):
      canonical.append(contentsOf: Array("task:data:\(data.count)\n".utf8))
      canonical.append(data)
    case .encodable(let body):
      canonical.append(contentsOf: Array("task:encodable\n".utf8))
      canonical.append((try? body.jsonData()) ?? Data())
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    canonical.append(contentsOf: Array("\nparameters:".utf8))
    canonical.append((try? encoder.encode(parameters.mapValues(ExactParameterValue.init))) ?? Data())
    canonical.append(contentsOf: Array("\nheaders:".utf8))
    canonical.append((try? encoder.encode(headers)) ?? Data())
    return SHA256Digest.hex(canonical)
  }

  /// The entry's identity in the store: method, URL (``url`` when known, else ``resource``) and ``bodyDigest``.
  /// Two snapshots with the same key are the same entry.
  public var key: String {
    "\(method.rawValue) \(url?.absoluteString ?? resource) \(bodyDigest)"
  }

  /// The name of the entry's file: the SHA-256 of ``key`` plus `.json`.
  public var fileName: String {
    SHA256Digest.hex(Array(key.utf8)) + ".json"
  }
}
