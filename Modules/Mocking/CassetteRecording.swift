import Foundation

/// One recorded exchange of a cassette: the request as it was sent (redacted) and what came back, a response or a
/// failure. It is the JSON file `0001-GET-users.json` of the cassette's directory; the response body, if any, is the
/// file beside it with the same name and the extension `.body`, kept as the bytes that arrived.
///
/// ```json
/// {
///   "format" : 1,
///   "request" : {
///     "headers" : [ { "name" : "Authorization", "value" : "<redacted>" } ],
///     "method" : "GET",
///     "url" : "http://127.0.0.1:8080/users?page=2"
///   },
///   "response" : {
///     "body" : { "file" : "0001-GET-users.body", "sha256" : "9f86…", "size" : 1024 },
///     "headers" : [ { "name" : "Content-Type", "value" : "application/json" } ],
///     "reason" : "OK",
///     "status" : 200
///   }
/// }
/// ```
public struct CassetteRecording: Codable, Sendable, Hashable {
  /// The version of the file format this library writes and reads.
  public static let currentFormat = 1

  /// The file format's version: ``currentFormat``.
  public var format: Int
  /// The request, redacted.
  public var request: CassetteRequest
  /// The response, when one arrived.
  public var response: Response?
  /// The transport's failure, when the request failed before a response head arrived.
  public var failure: Failure?

  /// Creates a recording.
  /// - Parameters:
  ///   - request: The request, redacted.
  ///   - response: The response, if one arrived.
  ///   - failure: The failure, if the request failed before a response.
  public init(request: CassetteRequest, response: Response? = nil, failure: Failure? = nil) {
    self.format = Self.currentFormat
    self.request = request
    self.response = response
    self.failure = failure
  }

  /// A recorded response.
  public struct Response: Codable, Sendable, Hashable {
    /// The status code.
    public var status: Int
    /// The reason phrase.
    public var reason: String
    /// The URL of the final response, after redirects (redacted).
    public var url: String?
    /// The header fields, in order, with secret values redacted.
    public var headers: [CassetteHeader]
    /// The body's file, when the body was not empty.
    public var body: BodyFile?
    /// The chunks as they arrived, with their time after the head: recorded only when
    /// ``CassetteTransport/Options/recordsTiming`` is on, so that other cassettes stay byte-identical across runs.
    public var chunks: [Chunk]?
    /// The error that ended the body after its recorded bytes, if one did.
    public var failure: Failure?
    /// The transfer's timing as the recording transport measured it: recorded only when
    /// ``CassetteTransport/Options/recordsTiming`` is on, and replayed as the response's metrics.
    public var timing: Timing?

    /// Creates a recorded response.
    /// - Parameters:
    ///   - status: The status code.
    ///   - reason: The reason phrase.
    ///   - url: The final URL.
    ///   - headers: The header fields.
    ///   - body: The body's file.
    ///   - chunks: The chunks with their timing.
    ///   - failure: The error that ended the body.
    ///   - timing: The transfer's timing.
    public init(
      status: Int,
      reason: String,
      url: String?,
      headers: [CassetteHeader],
      body: BodyFile? = nil,
      chunks: [Chunk]? = nil,
      failure: Failure? = nil,
      timing: Timing? = nil
    ) {
      self.status = status
      self.reason = reason
      self.url = url
      self.headers = headers
      self.body = body
      self.chunks = chunks
      self.failure = failure
      self.timing = timing
    }
  }

  /// A transfer's timing, in milliseconds from its start.
  public struct Timing: Codable, Sendable, Hashable {
    /// When the response head's first byte arrived.
    public var firstByte: Int?
    /// When the transfer ended.
    public var total: Int?

    /// Creates a timing.
    /// - Parameters:
    ///   - firstByte: The first byte's time.
    ///   - total: The end's time.
    public init(firstByte: Int?, total: Int?) {
      self.firstByte = firstByte
      self.total = total
    }
  }

  /// Where a response body is kept, and what it must be.
  public struct BodyFile: Codable, Sendable, Hashable {
    /// The file's name, in the cassette's directory: the entry's name with the extension `.body`.
    public var file: String
    /// The body's length in bytes.
    public var size: Int
    /// The SHA-256 of the body, in lowercase hexadecimal.
    public var sha256: String

    /// Creates a body file reference.
    /// - Parameters:
    ///   - file: The file's name.
    ///   - size: The length.
    ///   - sha256: The digest.
    public init(file: String, size: Int, sha256: String) {
      self.file = file
      self.size = size
      self.sha256 = sha256
    }
  }

  /// A chunk of a streamed body: its length and when it arrived.
  public struct Chunk: Codable, Sendable, Hashable {
    /// The chunk's length in bytes.
    public var size: Int
    /// When it arrived, in milliseconds after the response head.
    public var milliseconds: Int

    /// Creates a chunk.
    /// - Parameters:
    ///   - size: The length.
    ///   - milliseconds: The time after the head.
    public init(size: Int, milliseconds: Int) {
      self.size = size
      self.milliseconds = milliseconds
    }
  }

  /// A transport's failure: its code's name and its message (scrubbed of the request's secrets).
  public struct Failure: Codable, Sendable, Hashable {
    /// The name of the `TransportError.Code` (`connectionReset`, `idleTimeout`, ...).
    public var code: String
    /// The message.
    public var message: String

    /// Creates a failure.
    /// - Parameters:
    ///   - code: The code's name.
    ///   - message: The message.
    public init(code: String, message: String) {
      self.code = code
      self.message = message
    }
  }
}

/// A request as a cassette keeps it and matches it: the method, the URL and the header fields with secrets
/// redacted, and the body's digest (the digest of the redacted body, so that a changed token does not change it).
public struct CassetteRequest: Codable, Sendable, Hashable {
  /// The method.
  public var method: String
  /// The absolute URL, user information and secret query values redacted.
  public var url: String
  /// The header fields, in order, secret values redacted; the ignored ones left out.
  public var headers: [CassetteHeader]
  /// The body, when the request had one.
  public var body: Body?

  /// Creates a request.
  /// - Parameters:
  ///   - method: The method.
  ///   - url: The URL.
  ///   - headers: The header fields.
  ///   - body: The body.
  public init(method: String, url: String, headers: [CassetteHeader] = [], body: Body? = nil) {
    self.method = method
    self.url = url
    self.headers = headers
    self.body = body
  }

  /// A request body: its length and digest, and its text when it is short enough to read.
  public struct Body: Codable, Sendable, Hashable {
    /// The length in bytes, after redaction.
    public var size: Int
    /// The SHA-256 of the redacted body, in lowercase hexadecimal.
    public var sha256: String
    /// The redacted body as text, for bodies of text up to 4 KiB.
    public var text: String?

    /// Creates a request body.
    /// - Parameters:
    ///   - size: The length.
    ///   - sha256: The digest.
    ///   - text: The text.
    public init(size: Int, sha256: String, text: String? = nil) {
      self.size = size
      self.sha256 = sha256
      self.text = text
    }
  }

  /// Whether two requests are the same by the default rule: the same method, the same URL with its query
  /// parameters in any order, and the same body digest (or neither has a body).
  /// - Parameter other: The other request.
  /// - Returns: `true` when they match.
  public func matches(_ other: CassetteRequest) -> Bool {
    differences(from: other).isEmpty
  }

  /// What differs between two requests by the default rule: `method`, `origin`, `path`, `query`, `body`.
  func differences(from other: CassetteRequest) -> [String] {
    var differences: [String] = []
    if method != other.method { differences.append("the method (\(method) against \(other.method))") }
    let (mine, theirs) = (URLParts(url), URLParts(other.url))
    if mine.origin != theirs.origin { differences.append("the origin (\(mine.origin) against \(theirs.origin))") }
    if mine.path != theirs.path { differences.append("the path (\(mine.path) against \(theirs.path))") }
    if mine.query != theirs.query {
      differences.append(
        "the query (\(mine.query.joined(separator: "&")) against \(theirs.query.joined(separator: "&")))"
      )
    }
    if body?.sha256 != other.body?.sha256 {
      differences.append("the body (\(Self.describe(body)) against \(Self.describe(other.body)))")
    }
    return differences
  }

  private static func describe(_ body: Body?) -> String {
    guard let body else { return "none" }
    return "\(body.size) bytes, sha256 \(body.sha256.prefix(12))…"
  }

  /// A URL cut into what the default rule compares: the query's parameters are sorted.
  private struct URLParts {
    var origin = ""
    var path = ""
    var query: [String] = []

    init(_ url: String) {
      var rest = Substring(url)
      if let hash = rest.firstIndex(of: "#") { rest = rest[..<hash] }
      if let question = rest.firstIndex(of: "?") {
        query = rest[rest.index(after: question)...].split(separator: "&").map(String.init).sorted()
        rest = rest[..<question]
      }
      if let scheme = rest.range(of: "://") {
        let afterScheme = rest[scheme.upperBound...]
        let slash = afterScheme.firstIndex(of: "/") ?? afterScheme.endIndex
        origin = String(rest[..<slash])
        rest = rest[slash...]
      }
      path = rest.isEmpty ? "/" : String(rest)
    }
  }
}

/// A header field as a cassette keeps it.
public struct CassetteHeader: Codable, Sendable, Hashable {
  /// The field's name, as it was sent or received.
  public var name: String
  /// The value; `<redacted>` for a secret one.
  public var value: String

  /// Creates a field.
  /// - Parameters:
  ///   - name: The name.
  ///   - value: The value.
  public init(name: String, value: String) {
    self.name = name
    self.value = value
  }
}
