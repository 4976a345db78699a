public import Foundation
public import HTTPTypes
public import MalibuCore
import MalibuJSON
public import MalibuSerialization
import MalibuTransport
import MalibuValidation

/// A GraphQL query or mutation, sent as a ``TypedRequest``: `POST` of `{"query", "variables", "operationName"}` as
/// JSON to ``TypedRequest/path`` (`graphql` by default), its `data` decoded into ``TypedRequest/RawResource``.
///
/// ```swift
/// struct PostsData: Decodable, Sendable {
///   struct Post: Decodable, Sendable { let id: String; let title: String }
///   let posts: [Post]
/// }
///
/// struct AllPosts: GraphQLRequest {
///   typealias RawResource = PostsData
///   var query: GraphQLQuery { "query AllPosts($first: Int) { posts(first: $first) { id title } }" }
///   var variables: [String: Int] { ["first": 2] }
/// }
///
/// let posts = try await networking.send(AllPosts()).posts
/// ```
/// The query text comes from a string, or from a `.graphql` file in a bundle or a directory
/// (`GraphQLQuery.file(_:in:)`), read when the request is sent: a file that cannot be read fails the
/// request with `NetworkError` code `encodingFailed`. A response whose `errors` is not empty fails with `NetworkError`
/// code `graphQLErrors` (whatever its status), whose cause is a ``GraphQLError`` with every message and path and the
/// partial `data`, if any. ``TypedRequest/resourceKeyPath`` is read inside `data`; the networking's
/// `resourceKeyPath` does not apply.
public protocol GraphQLRequest: TypedRequest where Parameters == GraphQLPayload<Variables> {
  /// The variables: any `Encodable` type with named fields; ``NoParameters`` (none sent) by default.
  associatedtype Variables: Encodable & Sendable = NoParameters
  /// The query or mutation text.
  var query: GraphQLQuery { get }
  /// The variables.
  var variables: Variables { get }
  /// The operation to run, when the document holds several; `nil` by default.
  var operationName: String? { get }
}

extension GraphQLRequest {
  /// `POST`.
  public var method: HTTPRequest.Method { .post }
  /// `graphql`, joined to the networking's base URL.
  public var path: String { "graphql" }
  /// No operation name.
  public var operationName: String? { nil }

  /// The JSON body: the query text (read now), the variables and the operation name.
  public var parameters: GraphQLPayload<Variables> {
    get throws {
      GraphQLPayload(query: try query.text(), variables: variables, operationName: operationName)
    }
  }

  /// Reads the reply's `errors` first (a server may send them with a 4xx status, and they say more than the status
  /// does), then checks the response with `validate()`'s default rule and decodes ``TypedRequest/RawResource`` inside
  /// `data`, at ``TypedRequest/resourceKeyPath``: a networking's key path is for the envelopes of REST APIs and does
  /// not apply.
  /// - Parameters:
  ///   - response: The response.
  ///   - defaultKeyPath: Not read: the resource is inside `data`.
  /// - Returns: The raw resource, and the elements a lossy array left out of it.
  /// - Throws: `NetworkError` code `graphQLErrors`, the codes of `validate()`, `emptyResponse`, `decodingFailed` or
  ///   `decodedFallback`.
  public func decodeRaw(
    from response: Response,
    defaultKeyPath: ResourceKeyPath
  ) throws(NetworkError) -> DecodedResource<RawResource> {
    try checkErrors(in: response)
    _ = try response.validate()
    let keyPath = resourceKeyPath ?? .topLevel
    do {
      return try decodeData(RawResource.self, from: response, at: keyPath)
    } catch {
      throw decodingFailure(error, of: response, at: keyPath)
    }
  }

  /// Fails with `NetworkError` code `graphQLErrors` when the body is a GraphQL response with `errors`.
  package func checkErrors(in response: Response) throws(NetworkError) {
    // GraphQL replies are JSON whatever the request's decoder reads, so the envelope is read as JSON.
    guard let reply = try? MalibuJSONDecoder().decode(ErrorsReply.self, from: response.data), !reply.errors.isEmpty
    else {
      return
    }
    let partial = GraphQLError.partialData(of: response.data)
    let error = GraphQLError(errors: reply.errors, data: partial, decoder: response.resolve(decoder))
    throw NetworkError(
      code: .graphQLErrors,
      message: "the GraphQL response of \(Self.self) has \(reply.errors.count) error"
        + "\(reply.errors.count == 1 ? "" : "s")\(partial == nil ? "" : " and partial data"): \(error.summary)",
      response: response,
      underlyingError: error
    )
  }

  /// The resource, decoded from `data` at `keyPath`.
  package func decodeData<Raw: Decodable>(
    _ type: Raw.Type,
    from response: Response,
    at keyPath: ResourceKeyPath
  ) throws(NetworkError) -> DecodedResource<Raw> {
    try response.decodeResource(
      Raw.self,
      resolving: decoder,
      at: ResourceKeyPath(["data"] + keyPath.keys),
      arrays: arrayDecoding
    )
  }
}

extension GraphQLRequest where Variables == NoParameters {
  /// No variables.
  public var variables: NoParameters { NoParameters() }
}

/// The body of a ``GraphQLRequest``: `{"query": …, "variables": …, "operationName": …}`; `variables` and
/// `operationName` are left out when there are none.
public struct GraphQLPayload<Variables: Encodable & Sendable>: Encodable, Sendable {
  /// The query or mutation text.
  public let query: String
  /// The variables.
  public let variables: Variables
  /// The operation to run, if named.
  public let operationName: String?

  private enum CodingKeys: String, CodingKey {
    case query, variables, operationName
  }

  /// Encodes the three fields, leaving out empty variables and a missing operation name.
  /// - Parameter encoder: The encoder.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(query, forKey: .query)
    if !(variables is NoParameters) { try container.encode(variables, forKey: .variables) }
    try container.encodeIfPresent(operationName, forKey: .operationName)
  }
}

/// Where a GraphQL document comes from: a string, or a `.graphql` file in a bundle or a directory.
///
/// ```swift
/// let inline: GraphQLQuery = "{ posts { id title } }"
/// let bundled = GraphQLQuery.file("AllPosts", in: Bundle.module)          // AllPosts.graphql
/// let onDisk = GraphQLQuery.file("AllPosts.graphql", in: URL(fileURLWithPath: "queries"))
/// let operation = "AllPosts"
/// let named: GraphQLQuery = "query \(operation) { posts { id title } }"  // query AllPosts { posts { id title } }
/// ```
///
/// An interpolation is plain text insertion, as in any Swift string: the value's text goes into the document as it
/// is, with no quoting or escaping, so it can build the document's own parts (an operation name, a fragment, a field
/// list). Values a user gives belong in the request's `variables`, never interpolated: a quote or a brace in them
/// would change the document.
public struct GraphQLQuery: Sendable, ExpressibleByStringLiteral, ExpressibleByStringInterpolation {
  private enum Source: Sendable {
    case text(String)
    case file(URL?, name: String, place: String)
    case directoryFile(URL, name: String, place: String)
    case outside(name: String, place: String)
  }

  private let source: Source

  private init(_ source: Source) {
    self.source = source
  }

  /// A document given as text.
  /// - Parameter value: The text.
  public init(stringLiteral value: String) {
    source = .text(value)
  }

  /// A document given as text with interpolations (`"query \(name) { … }"`), each inserted as plain text, without
  /// quoting or escaping.
  /// - Parameter stringInterpolation: The literal's text and interpolated values.
  public init(stringInterpolation: DefaultStringInterpolation) {
    source = .text(String(stringInterpolation: stringInterpolation))
  }

  /// A document given as text.
  /// - Parameter text: The text.
  /// - Returns: The query.
  public static func text(_ text: String) -> GraphQLQuery {
    GraphQLQuery(.text(text))
  }

  /// A `.graphql` file among a bundle's resources (`name` with or without its extension, and with the folder it was
  /// copied in, if any: `Queries/AllPosts`).
  /// - Parameters:
  ///   - name: The file name.
  ///   - bundle: The bundle, such as `Bundle.module`.
  /// - Returns: The query; the file is read when the request is sent.
  public static func file(_ name: String, in bundle: Bundle) -> GraphQLQuery {
    let file = fileName(name)
    let directory = (file as NSString).deletingLastPathComponent
    let last = (file as NSString).lastPathComponent as NSString
    let url = bundle.url(
      forResource: last.deletingPathExtension,
      withExtension: last.pathExtension,
      subdirectory: directory.isEmpty ? nil : directory
    )
    return GraphQLQuery(.file(url, name: file, place: "the bundle at \(bundle.bundleURL.path)"))
  }

  /// A `.graphql` file in a directory (`name` with or without its extension).
  ///
  /// The file must stay inside `directory`: a name that is absolute or has a `..` component, or whose path leads
  /// outside the directory through a symbolic link, fails ``text()`` without reading anything; the file itself is read
  /// only when it is a regular file (never a FIFO, which would block).
  /// - Parameters:
  ///   - name: The file name.
  ///   - directory: The directory.
  /// - Returns: The query; the file is read when the request is sent.
  public static func file(_ name: String, in directory: URL) -> GraphQLQuery {
    let file = fileName(name)
    let place = "the directory \(directory.path)"
    guard !file.hasPrefix("/"), !file.split(separator: "/").contains("..") else {
      return GraphQLQuery(.outside(name: file, place: place))
    }
    return GraphQLQuery(.directoryFile(directory, name: file, place: place))
  }

  /// The largest query file read.
  static let maximumFileSize = 1 << 20

  /// The text of `name` in `directory`, when its real path (links resolved) is inside the directory's.
  private static func read(_ name: String, in directory: URL, place: String) throws(NetworkError) -> String {
    let base = directory.standardizedFileURL.resolvingSymlinksInPath().path
    let resolved = directory.appendingPathComponent(name).standardizedFileURL.resolvingSymlinksInPath()
    guard resolved.path.hasPrefix(base.hasSuffix("/") ? base : base + "/") else {
      throw outside(name, place)
    }
    do {
      let (data, _) = try UntrustedFile.read(resolved, limit: maximumFileSize)
      guard let text = String(data: data, encoding: .utf8) else {
        throw NetworkError(code: .encodingFailed, message: "the GraphQL query file '\(name)' is not UTF-8 text")
      }
      return text
    } catch let error as NetworkError {
      throw error
    } catch {
      throw NetworkError(
        code: .encodingFailed,
        message: "the GraphQL query file '\(name)' could not be read from \(place)",
        underlyingError: error
      )
    }
  }

  private static func outside(_ name: String, _ place: String) -> NetworkError {
    NetworkError(
      code: .encodingFailed,
      message: "the GraphQL query file '\(name)' is outside \(place); it is not read"
    )
  }

  private static func fileName(_ name: String) -> String {
    (name as NSString).pathExtension.isEmpty ? name + ".graphql" : name
  }

  /// The document's text.
  /// - Returns: The text.
  /// - Throws: `NetworkError` code `encodingFailed` when the file is missing, outside its directory, not a regular
  ///   file, or cannot be read as UTF-8.
  public func text() throws(NetworkError) -> String {
    switch source {
    case .text(let text):
      return text
    case .outside(let name, let place):
      throw Self.outside(name, place)
    case .directoryFile(let directory, let name, let place):
      return try Self.read(name, in: directory, place: place)
    case .file(let url, let name, let place):
      guard let url else {
        throw NetworkError(code: .encodingFailed, message: "the GraphQL query file '\(name)' is not in \(place)")
      }
      do {
        return try String(contentsOf: url, encoding: .utf8)
      } catch {
        throw NetworkError(
          code: .encodingFailed,
          message: "the GraphQL query file '\(name)' could not be read from \(place)",
          underlyingError: error
        )
      }
    }
  }
}

/// The `errors` of a GraphQL response: the cause of a `NetworkError` with code `graphQLErrors`.
///
/// ```swift
/// catch let error as NetworkError where error.code == .graphQLErrors {
///   for entry in error.graphQLError?.errors ?? [] { print(entry.message, entry.path) }
///   let partial = try error.graphQLError?.partialData(PostsData.self)
/// }
/// ```
public struct GraphQLError: Error, Sendable, CustomStringConvertible {
  /// One entry of `errors`.
  public struct Entry: Decodable, Sendable, Hashable {
    /// The message.
    public let message: String
    /// Where in `data` it happened: field names and list indices (`["posts", 1, "author"]`); empty when not given.
    public let path: [PathComponent]

    private enum CodingKeys: String, CodingKey {
      case message, path
    }

    /// Decodes an entry; a missing `path` is empty.
    /// - Parameter decoder: The decoder.
    public init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      message = try container.decode(String.self, forKey: .message)
      path = try container.decodeIfPresent([PathComponent].self, forKey: .path) ?? []
    }

    /// The path as `posts.1.author`, or `nil` when empty.
    public var pathText: String? {
      path.isEmpty ? nil : path.map(\.description).joined(separator: ".")
    }
  }

  /// A step of an entry's path: a field name or a list index.
  public enum PathComponent: Decodable, Sendable, Hashable, CustomStringConvertible {
    /// A field name.
    case field(String)
    /// A list index.
    case index(Int)

    /// Decodes a name or an index.
    /// - Parameter decoder: The decoder.
    public init(from decoder: any Decoder) throws {
      let container = try decoder.singleValueContainer()
      if let index = try? container.decode(Int.self) {
        self = .index(index)
      } else {
        self = .field(try container.decode(String.self))
      }
    }

    /// The name or the index.
    public var description: String {
      switch self {
      case .field(let name): return name
      case .index(let index): return "\(index)"
      }
    }
  }

  /// Every entry of `errors`, in order.
  public let errors: [Entry]
  /// The response's `data` as JSON, when it is there and not `null` (a partial result).
  public let data: Data?
  /// The decoder of the request: its own, else its networking's.
  private let decoder: any ResponseDecoder

  init(errors: [Entry], data: Data?, decoder: any ResponseDecoder) {
    self.errors = errors
    self.data = data
    self.decoder = decoder
  }

  /// The partial `data`, decoded by the request's decoder (its ``TypedRequest/decoder``, else its networking's
  /// `Networking.decoder`).
  /// - Parameter type: The type to decode.
  /// - Returns: The value, or `nil` when the response has no `data`.
  /// - Throws: The decoder's error when `data` does not decode as `type`.
  public func partialData<T: Decodable>(_ type: T.Type = T.self) throws -> T? {
    try partialData(T.self, decoder: decoder)
  }

  /// The partial `data`, decoded by `decoder`.
  /// - Parameters:
  ///   - type: The type to decode.
  ///   - decoder: The decoder: `JSONDecoder()` with its strategies, `MalibuJSONDecoder()`, any `ResponseDecoder`.
  /// - Returns: The value, or `nil` when the response has no `data`.
  /// - Throws: The decoder's error when `data` does not decode as `type`.
  public func partialData<T: Decodable>(_ type: T.Type = T.self, decoder: some ResponseDecoder) throws -> T? {
    guard let data else { return nil }
    return try decoder.decode(T.self, from: data)
  }

  /// Every message, with its path: `"no such post" at posts.1; "forbidden" at viewer`.
  public var summary: String {
    errors.map { entry in
      String(reflecting: entry.message) + (entry.pathText.map { " at \($0)" } ?? "")
    }.joined(separator: "; ")
  }

  /// `GraphQLError: ` and the ``summary``.
  public var description: String { "GraphQLError: \(summary)" }

  /// The `data` member of a GraphQL response, as JSON, unless missing or `null`.
  static func partialData(of body: Data) -> Data? {
    guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
      let data = object["data"], !(data is NSNull)
    else { return nil }
    return try? JSONSerialization.data(withJSONObject: data, options: [.sortedKeys])
  }
}

extension NetworkError {
  /// The GraphQL errors this error carries (code `graphQLErrors`).
  public var graphQLError: GraphQLError? { underlyingError as? GraphQLError }
}

/// The `errors` member of a GraphQL response.
private struct ErrorsReply: Decodable {
  let errors: [GraphQLError.Entry]

  private enum CodingKeys: String, CodingKey {
    case errors
  }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    errors = try container.decodeIfPresent([GraphQLError.Entry].self, forKey: .errors) ?? []
  }
}
