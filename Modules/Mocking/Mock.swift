public import Foundation
public import HTTPTypes
public import MalibuCore

/// A canned answer to one request: a response head, a body (bytes, a JSON object, or a file read when the request
/// is made), an optional error and an optional delay.
///
/// ```swift
/// Mock(fileName: "boards.json", bundle: .module)                  // a resource of a (test) bundle
/// Mock(fileName: "boards.json", directory: fixturesURL)           // a file in a directory
/// Mock(json: ["id": 1, "title": "Balsa Fish"])                    // 200, application/json
/// Mock(json: [["id": 1], ["id": 2]])                              // an array
/// Mock(json: Board(id: 1, title: "Balsa Fish"))                   // an Encodable value
/// Mock(json: #"{"id": 1, "title": "Balsa Fish"}"#)                // JSON text (a String or Data), sent as it is
/// Mock(httpResponse: HTTPResponse(status: .notFound), data: Data(#"{"error":"gone"}"#.utf8))
/// Mock(httpResponse: HTTPResponse(status: .ok), error: URLError(.notConnectedToInternet), delay: 0.5)
/// ```
///
/// Creating a mock never fails: a file that does not exist, or a JSON value that cannot be serialised, is recorded
/// and reported when the mock is used, as a `NetworkError` naming the file or the value (see ``loadData()``).
public struct Mock: Sendable {
  enum Source: Sendable {
    case data(Data)
    /// A file and the directory it must stay inside.
    case file(URL, root: URL)
    case failure(NetworkError)
    /// A scripted event stream (``init(events:delay:)``).
    case events(MockEventStream)
  }

  /// The response head: status and header fields. File and JSON mocks set `Content-Type` from the file's extension
  /// or to `application/json`.
  public var httpResponse: HTTPResponse
  /// When set, a request answered by this mock fails with this error (after the delay), whatever the body.
  public var error: (any Error)?
  /// How long to wait before answering, in seconds; `nil` uses the provider's delay. NaN, infinite and negative
  /// values count as no delay; values beyond a day are capped at a day.
  public var delay: Double?

  let source: Source

  init(httpResponse: HTTPResponse, source: Source, error: (any Error)?, delay: Double?) {
    self.httpResponse = httpResponse
    self.source = source
    self.error = error
    self.delay = delay
  }

  /// A mock answering with a resource file of a bundle, with status 200.
  ///
  /// `fileName` includes the extension (`"boards.json"`) and may include a relative folder
  /// (`"Fixtures/boards.json"`). A bare name is looked up at the top of the bundle's resources first, then in its
  /// folders, so a test target with `resources: [.copy("Fixtures")]` can use `Mock(fileName: "boards.json",
  /// bundle: .module)`.
  ///
  /// Mock file names are untrusted paths: an absolute path, a `..` component or a NUL byte is refused, and so is a
  /// symbolic link that resolves outside the bundle's resources (one inside them is followed). Either way the mock
  /// fails when used, with a `NetworkError` (code `transportFailed`) that says why.
  /// - Parameters:
  ///   - fileName: The file's name, with its extension.
  ///   - bundle: The bundle holding it; the main bundle by default.
  ///   - delay: A delay in seconds for this mock; `nil` uses the provider's.
  public init(fileName: String, bundle: Bundle = .main, delay: Double? = nil) {
    let source: Source
    let root = bundle.resourceURL ?? bundle.bundleURL
    if let problem = MockFiles.nameProblem(fileName) {
      source = .failure(MockFiles.refused(fileName, problem))
    } else if let url = MockFiles.locate(fileName, in: bundle) {
      source = .file(url, root: root)
    } else {
      let place = root.path
      source = .failure(
        NetworkError(
          code: .transportFailed,
          message: "the mock file '\(fileName)' does not exist in the bundle at '\(place)'"
        )
      )
    }
    self.init(
      httpResponse: HTTPResponse(status: .ok, headerFields: MockFiles.headerFields(for: fileName)),
      source: source,
      error: nil,
      delay: delay
    )
  }

  /// A mock answering with a file of a directory, with status 200. The file is read when the mock is used.
  ///
  /// The file must stay inside `directory`: an absolute path, a `..` component or a NUL byte in `fileName` is
  /// refused, and so is a symbolic link that resolves outside `directory` (one inside it is followed), checked when
  /// the mock is used. Either way the mock fails with a `NetworkError` (code `transportFailed`) that says why.
  /// - Parameters:
  ///   - fileName: The file's name, with its extension, or a path relative to `directory`.
  ///   - directory: A file URL of the directory.
  ///   - delay: A delay in seconds for this mock; `nil` uses the provider's.
  public init(fileName: String, directory: URL, delay: Double? = nil) {
    self.init(
      httpResponse: HTTPResponse(status: .ok, headerFields: MockFiles.headerFields(for: fileName)),
      source: MockFiles.nameProblem(fileName).map { .failure(MockFiles.refused(fileName, $0)) }
        ?? .file(directory.appendingPathComponent(fileName), root: directory),
      error: nil,
      delay: delay
    )
  }

  /// A mock answering with a JSON object, with status 200 and `Content-Type: application/json`.
  ///
  /// Values follow the rules of `ParameterValue.init(normalizing:)` (numbers, strings, booleans, arrays,
  /// dictionaries, `JSONNull`, dates, `Encodable` values); keys are written sorted. A value that cannot be
  /// serialised makes the mock fail when used, with `NetworkError.Code.unsupportedParameter`.
  /// - Parameters:
  ///   - json: The object.
  ///   - delay: A delay in seconds for this mock; `nil` uses the provider's.
  public init(json: [String: any Sendable], delay: Double? = nil) {
    self.init(jsonSource: Self.encoded { .object(try ParameterValue.normalize(json)) }, delay: delay)
  }

  /// A mock answering with a JSON array, with status 200 and `Content-Type: application/json`.
  ///
  /// Elements follow the rules of the dictionary form (`Mock(json: [String: any Sendable])`): numbers, strings,
  /// booleans, arrays, dictionaries, `JSONNull`, dates, `Encodable` values; keys are written sorted. A value that
  /// cannot be serialised makes the mock fail when used, with `NetworkError.Code.unsupportedParameter`.
  /// - Parameters:
  ///   - json: The array.
  ///   - delay: A delay in seconds for this mock; `nil` uses the provider's.
  public init(json: [any Sendable], delay: Double? = nil) {
    self.init(jsonSource: Self.encoded { try ParameterValue(normalizing: json) }, delay: delay)
  }

  /// A mock answering with an `Encodable` value as JSON (a model of the app, an array of them), with status 200 and
  /// `Content-Type: application/json`.
  ///
  /// A value that cannot be encoded makes the mock fail when used, with `NetworkError.Code.encodingFailed` and the
  /// `EncodingError` as the cause.
  /// - Parameters:
  ///   - json: The value.
  ///   - encoder: The encoder; by default a `JSONEncoder` writing keys sorted, dates as Foundation's default.
  ///   - delay: A delay in seconds for this mock; `nil` uses the provider's.
  public init<Value: Encodable & Sendable>(json: Value, encoder: JSONEncoder? = nil, delay: Double? = nil) {
    let source: Source
    do {
      source = .data(try (encoder ?? Self.sortedEncoder()).encode(json))
    } catch {
      source = .failure(
        NetworkError(
          code: .encodingFailed,
          message: "the mock's \(Value.self) cannot be encoded as JSON: \(error)",
          underlyingError: error
        )
      )
    }
    self.init(jsonSource: source, delay: delay)
  }

  /// A mock answering with JSON text, sent byte for byte, with status 200 and `Content-Type: application/json`.
  ///
  /// The text is the body, not a string value: `Mock(json: #"{"id": 1}"#)` answers with an object, and a JSON
  /// string is written with its quotes (`Mock(json: #""hello""#)`). Text that is not JSON makes the mock fail when
  /// used, with `NetworkError.Code.jsonSerializationFailed`, so that a typo in a fixture is not mistaken for a bug
  /// in the code under test.
  /// - Parameters:
  ///   - json: The JSON text.
  ///   - delay: A delay in seconds for this mock; `nil` uses the provider's.
  public init(json: String, delay: Double? = nil) {
    self.init(json: Data(json.utf8), delay: delay)
  }

  /// A mock answering with JSON text given as bytes (a fixture read by the test, say), sent as they are, with
  /// status 200 and `Content-Type: application/json`.
  ///
  /// Bytes that are not JSON make the mock fail when used, with `NetworkError.Code.jsonSerializationFailed`.
  /// - Parameters:
  ///   - json: The JSON text, UTF-8 encoded.
  ///   - delay: A delay in seconds for this mock; `nil` uses the provider's.
  public init(json: Data, delay: Double? = nil) {
    let source: Source
    do {
      _ = try JSONSerialization.jsonObject(with: json, options: .fragmentsAllowed)
      source = .data(json)
    } catch {
      source = .failure(
        NetworkError(
          code: .jsonSerializationFailed,
          message: "the mock's JSON text (\(json.count) bytes) is not valid JSON: \(error.localizedDescription)",
          underlyingError: error
        )
      )
    }
    self.init(jsonSource: source, delay: delay)
  }

  /// A `200 application/json` mock with `source` as its body.
  private init(jsonSource source: Source, delay: Double?) {
    self.init(
      httpResponse: HTTPResponse(status: .ok, headerFields: [.contentType: "application/json"]),
      source: source,
      error: nil,
      delay: delay
    )
  }

  /// The JSON of the value `normalize` makes, keys sorted; a failure recorded as the mock's error.
  private static func encoded(_ normalize: () throws -> ParameterValue) -> Source {
    do {
      return .data(try sortedEncoder().encode(try normalize()))
    } catch let error as NetworkError {
      return .failure(error)
    } catch {
      return .failure(
        NetworkError(code: .encodingFailed, message: "the mock's JSON cannot be encoded", underlyingError: error)
      )
    }
  }

  /// A JSON encoder writing keys sorted and slashes as they are.
  private static func sortedEncoder() -> JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return encoder
  }

  /// A mock answering with a response head you build, an optional body and an optional error.
  /// - Parameters:
  ///   - httpResponse: The status and header fields, returned as they are.
  ///   - data: The body; empty when `nil`.
  ///   - error: When set, the request fails with this error instead of answering.
  ///   - delay: A delay in seconds for this mock; `nil` uses the provider's.
  public init(httpResponse: HTTPResponse, data: Data? = nil, error: (any Error)? = nil, delay: Double? = nil) {
    self.init(httpResponse: httpResponse, source: .data(data ?? Data()), error: error, delay: delay)
  }

  /// The body this mock answers with, reading its file if it has one.
  /// - Returns: The body.
  /// - Throws: `NetworkError` with code `NetworkError.Code.transportFailed` naming the file when it does not
  ///   exist, cannot be read, or its name or a symbolic link leads outside its directory; or the error recorded
  ///   when the mock was created (an unsupported JSON value).
  public func loadData() throws(NetworkError) -> Data {
    switch source {
    case .data(let data):
      return data
    case .failure(let error):
      throw error
    case .file(let url, let root):
      return try MockFiles.read(url, root: root)
    case .events(let script):
      return script.firstConnectionText
    }
  }
}
