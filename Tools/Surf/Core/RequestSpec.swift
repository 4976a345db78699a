public import Foundation
import HTTPTypes
public import MalibuCore
import MalibuEncoding

/// How data items are encoded when no file asks for multipart.
public enum BodyStyle: Hashable, Sendable {
  /// `field=value` items make a JSON object (the default).
  case json
  /// `field=value` items make an `application/x-www-form-urlencoded` form (`--form`), or a multipart one when a
  /// `field@file` item is given.
  case form
  /// Always `multipart/form-data` (`--multipart`).
  case multipart
}

/// What one `surf` request sends: the method, the URL with its query, header fields and the body, built from a
/// ``RequestLine`` and standard input.
public struct RequestSpec: Sendable {
  /// The body of the request.
  public enum Body: Sendable {
    /// No body.
    case none
    /// A JSON object (or a top-level array) from `field=value` and `field:=json` items, their names read as
    /// ``NestedJSON`` paths.
    case json(ParameterValue)
    /// A form from `field=value` items, in order.
    case form([(name: String, value: String)])
    /// A multipart form: string fields, then files streamed from disk.
    case multipart(fields: [(name: String, value: String)], files: [(name: String, path: URL, mimeType: String?)])
    /// The bytes of a file, streamed from disk (`@file`).
    case file(URL, contentType: String)
    /// Bytes read from standard input.
    case data(Data, contentType: String)
  }

  /// The method.
  public var method: String
  /// The URL, query items appended.
  public var url: URL
  /// Header fields, in the order given.
  public var headers: [(name: String, value: String)]
  /// The body.
  public var body: Body

  /// Builds the request of a command line.
  /// - Parameters:
  ///   - line: The method, URL and items.
  ///   - style: How data items are encoded.
  ///   - standardInput: The bytes of standard input, read only when it is not a terminal and `--ignore-stdin` is
  ///     not given; used as the body when no item makes one.
  ///   - currentDirectory: Where relative file paths start.
  /// - Throws: ``SurfError`` for items that contradict each other, a file that cannot be read, JSON that does not
  ///   parse, or a URL that is not one.
  public init(
    line: RequestLine,
    style: BodyStyle = .json,
    standardInput: Data? = nil,
    currentDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
  ) throws(SurfError) {
    var headers: [(name: String, value: String)] = []
    var query: [(name: String, value: String)] = []
    var fields: [(name: String, value: String)] = []
    var json: [(name: String, value: ParameterValue)] = []  // in order: HTTPie's nested JSON paths
    var rawJSONNames: [String] = []
    var files: [(name: String, path: URL, mimeType: String?)] = []
    var bodyFile: URL?
    func resolve(_ path: String) -> URL {
      let expanded = (path as NSString).expandingTildeInPath
      return URL(fileURLWithPath: expanded, relativeTo: currentDirectory).standardizedFileURL
    }
    for item in line.items {
      switch item {
      case .header(let name, let value): headers.append((name, value))
      case .query(let name, let value): query.append((name, value))
      case .field(let name, let value):
        fields.append((name, value))
        json.append((name, .string(value)))
      case .fieldFromFile(let name, let path):
        let value = try Self.readText(resolve(path), for: name)
        fields.append((name, value))
        json.append((name, .string(value)))
      case .rawJSON(let name, let text):
        json.append((name, try Self.parseJSON(Data(text.utf8), for: name)))
        rawJSONNames.append(name)
      case .rawJSONFromFile(let name, let path):
        json.append((name, try Self.parseJSON(try Self.read(resolve(path), for: name), for: name)))
        rawJSONNames.append(name)
      case .file(let name, let path, let mimeType):
        let url = resolve(path)
        try Self.checkReadable(url, for: name)
        files.append((name, url, mimeType))
      case .bodyFile(let path):
        guard bodyFile == nil else { throw SurfError.usage("only one @file body can be given") }
        let url = resolve(path)
        try Self.checkReadable(url, for: "@\(path)")
        bodyFile = url
      }
    }
    let hasItemBody = line.items.contains(where: \.isBody)
    if let bodyFile {
      guard line.items.filter(\.isBody).count == 1 else {
        throw SurfError.usage("an @file body cannot be combined with data fields or file fields")
      }
      body = .file(bodyFile, contentType: Self.mimeType(of: bodyFile))
    } else if !files.isEmpty || (style == .multipart && hasItemBody) {
      if let name = rawJSONNames.first {
        throw SurfError.usage("'\(name):=' is a JSON field; multipart forms take strings")
      }
      body = .multipart(fields: fields, files: files)
    } else if hasItemBody, style == .form {
      if let name = rawJSONNames.first {
        throw SurfError.usage("'\(name):=' is a JSON field; forms take strings (drop --form)")
      }
      body = .form(fields)
    } else if hasItemBody {
      body = .json(try NestedJSON.body(json))
      if !headers.contains(where: { $0.name.lowercased() == "accept" }) {
        headers.insert(("Accept", "application/json, */*;q=0.5"), at: 0)
      }
    } else if let standardInput, !standardInput.isEmpty {
      switch style {
      case .form: body = .data(standardInput, contentType: "application/x-www-form-urlencoded")
      default:
        let isJSON = (try? JSONSerialization.jsonObject(with: standardInput, options: .fragmentsAllowed)) != nil
        body = .data(standardInput, contentType: isJSON ? "application/json" : "application/octet-stream")
      }
    } else {
      body = .none
    }
    let hasBody: Bool
    if case .none = body { hasBody = false } else { hasBody = true }
    method = line.effectiveMethod(hasBody: hasBody)
    url = try Self.url(line.url, adding: query)
    self.headers = headers
  }

  /// The URL with query items appended, each name and value percent-encoded (`+`, `&`, `=` and `#` included).
  static func url(_ string: String, adding query: [(name: String, value: String)]) throws(SurfError) -> URL {
    guard var components = URLComponents(string: string), let scheme = components.scheme?.lowercased(),
      scheme == "http" || scheme == "https", !(components.host ?? "").isEmpty
    else { throw SurfError.usage("'\(string)' is not an http(s) URL") }
    if !query.isEmpty {
      let added = query.map { "\(encode($0.name))=\(encode($0.value))" }.joined(separator: "&")
      let existing = components.percentEncodedQuery.map { $0.isEmpty ? [] : [$0] } ?? []
      components.percentEncodedQuery = (existing + [added]).joined(separator: "&")
    }
    if components.path.isEmpty { components.path = "/" }
    guard let url = components.url else { throw SurfError.usage("'\(string)' is not an http(s) URL") }
    return url
  }

  private static let queryValueCharacters: CharacterSet = {
    var set = CharacterSet.urlQueryAllowed
    set.remove(charactersIn: "&=+#")
    return set
  }()

  private static func encode(_ text: String) -> String {
    text.addingPercentEncoding(withAllowedCharacters: queryValueCharacters) ?? text
  }

  private static func read(_ url: URL, for name: String) throws(SurfError) -> Data {
    do {
      return try Data(contentsOf: url)
    } catch {
      throw SurfError(status: .error, message: "cannot read '\(url.path)' for \(name)", underlyingError: error)
    }
  }

  private static func readText(_ url: URL, for name: String) throws(SurfError) -> String {
    let data = try read(url, for: name)
    guard let text = String(data: data, encoding: .utf8) else {
      throw SurfError.usage("'\(url.path)' for \(name) is not UTF-8 text")
    }
    return text
  }

  private static func checkReadable(_ url: URL, for name: String) throws(SurfError) {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue,
      FileManager.default.isReadableFile(atPath: url.path)
    else { throw SurfError.usage("cannot read '\(url.path)' for \(name)") }
  }

  private static func parseJSON(_ data: Data, for name: String) throws(SurfError) -> ParameterValue {
    do {
      return try JSONDecoder().decode(ParameterValue.self, from: data)
    } catch {
      throw SurfError(status: .error, message: "'\(name):=' is not valid JSON", underlyingError: error)
    }
  }

  /// The media type of a file body, by its extension; `application/octet-stream` for any other.
  /// - Parameter file: The file.
  /// - Returns: The media type.
  public static func mimeType(of file: URL) -> String {
    let types: [String: String] = [
      "json": "application/json", "txt": "text/plain", "html": "text/html", "htm": "text/html",
      "xml": "application/xml",
      "csv": "text/csv", "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif",
      "svg": "image/svg+xml", "pdf": "application/pdf", "zip": "application/zip", "gz": "application/gzip",
      "js": "text/javascript", "css": "text/css", "yaml": "application/yaml", "yml": "application/yaml",
    ]
    return types[file.pathExtension.lowercased()] ?? "application/octet-stream"
  }

  /// Whether the body is read from files on disk (an `@file` body or multipart file fields): those get an upload
  /// progress bar.
  public var uploadsFiles: Bool {
    switch body {
    case .file: return true
    case .multipart(_, let files): return !files.isEmpty
    default: return false
    }
  }

  /// The Malibu request for this command line.
  /// - Parameter storePolicy: `.offline` for `--offline`.
  /// - Returns: The request, with an absolute URL as its resource.
  public func request(storePolicy: StorePolicy = .unspecified) -> Request {
    let method = HTTPRequest.Method(self.method) ?? .get
    var headerFields: [String: String] = [:]
    var names: [String: String] = [:]  // lower-cased name → the spelling first given
    for (name, value) in headers {
      let key = names[name.lowercased(), default: name]
      names[name.lowercased()] = key
      if let earlier = headerFields[key], !earlier.isEmpty {
        headerFields[key] = "\(earlier), \(value)"
      } else {
        headerFields[key] = value
      }
    }
    let resource = url.absoluteString
    var request: Request
    switch body {
    case .none:
      request = Request(method: method, resource: resource, headers: headerFields)
    case .json(let object):
      request = Request(method: method, resource: resource, body: object, contentType: .json, headers: headerFields)
    case .form(let fields):
      var parameters: Parameters = [:]
      for (name, value) in fields { parameters[name] = value }
      request = Request(
        method: method,
        resource: resource,
        contentType: .formURLEncoded,
        parameters: parameters,
        headers: headerFields
      )
    case .multipart(let fields, let files):
      var parameters: Parameters = [:]
      for (name, value) in fields { parameters[name] = value }
      for (name, path, mimeType) in files {
        parameters[name] = MultipartFile(url: path, fileName: path.lastPathComponent, mimeType: mimeType)
      }
      request = Request.upload(multipartParameters: parameters, to: resource, method: method, headers: headerFields)
    case .file(let file, let contentType):
      request = Request.upload(
        fileAt: file,
        to: resource,
        method: method,
        contentType: .custom(contentType),
        headers: headerFields
      )
    case .data(let data, let contentType):
      request = Request.upload(
        data: data,
        to: resource,
        method: method,
        contentType: .custom(contentType),
        headers: headerFields
      )
    }
    request.storePolicy = storePolicy
    request.cachePolicy = .reloadIgnoringLocalCacheData
    return request
  }
}
