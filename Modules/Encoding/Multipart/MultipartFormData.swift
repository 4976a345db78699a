public import Foundation
public import MalibuCore

/// A `multipart/form-data` body (RFC 7578): text fields, in-memory data and files, with an exact length known up
/// front and a body that can be streamed from disk.
///
/// ```swift
/// var form = MultipartFormData(boundary: "Boundary-1")
/// form.append("John", name: "firstname")
/// form.append(fileAt: URL(fileURLWithPath: "/tmp/photo.jpg"), name: "photo", fileName: "photo.jpg", mimeType: "image/jpeg")
/// form.contentLength                   // exact, known before anything is read
/// let whole: Data = try form.encode()  // the whole body in memory; transports stream it as a BodySource
/// ```
///
/// The layout, with CRLF line ends:
///
/// ```
/// --Boundary-1
/// Content-Disposition: form-data; name="firstname"
///
/// John
/// --Boundary-1
/// Content-Disposition: form-data; name="photo"; filename="photo.jpg"
/// Content-Type: image/jpeg
///
/// <the file's bytes>
/// --Boundary-1--
/// ```
///
/// - Text fields carry no `Content-Type` (RFC 7578 says `text/plain`) and are written as UTF-8, not escaped.
/// - In names and file names `"`, CR and LF are written `%22`, `%0D` and `%0A`, as the HTML standard does; other
///   characters, non-ASCII included, are UTF-8 as is.
/// - Data and file parts always carry a `Content-Type`: the one given, else (for files) one guessed from the file
///   name's extension, else `application/octet-stream`.
/// - A form with no parts is the close delimiter alone, `--boundary--` and CRLF.
///
/// Appending never throws, so that forms read naturally. A file that cannot be read (missing, not a regular file), a
/// media type that is not valid, or a chosen boundary that is not valid or occurs in a part is recorded in
/// ``recordedError`` and thrown by ``encode()`` and ``makeReader()``: never a body silently missing a part.
///
/// ## Boundaries
///
/// ``init()`` draws a boundary from `SystemRandomNumberGenerator`: `Boundary-` and 32 letters and digits (about 190
/// random bits). Every in-memory part (headers and content) is checked as it is appended; when one contains the
/// boundary, a new boundary is drawn, so read ``boundary`` and ``contentType`` after the last append. Files are not
/// scanned (that would read them twice): the chance that a file holds a given 190-bit random string is negligible.
/// A boundary passed to ``init(boundary:)`` is never changed: a part containing its delimiter (`--` and the
/// boundary, what a parser looks for) is an error; the bare boundary inside a part is harmless (boundary `B`, field
/// value `Balsa`). An in-memory part is checked as it is appended (a recorded error). A file part is checked as it
/// is read, not read twice: reading the body (``encode()``, or the transport streaming it) fails with
/// `NetworkError.Code.encodingFailed`, naming the part, before the piece holding the delimiter is handed over, so a
/// file chosen by someone else can never forge a part the server would see. Choose a boundary of your own only when
/// a peer needs a fixed one; the random boundary is the safe default.
public struct MultipartFormData: Sendable {
  /// The boundary between parts, without the leading `--`.
  public private(set) var boundary: String
  /// The first problem met while appending, thrown by ``encode()`` and ``makeReader()``; `nil` when the form is
  /// fine.
  public private(set) var recordedError: NetworkError?
  /// The parts, in the order appended.
  private(set) var parts: [Part] = []
  /// Draws a new boundary when a part contains the current one; `nil` for a boundary the caller chose.
  private let boundaryGenerator: (@Sendable () -> String)?

  /// An empty form with a random boundary (see "Boundaries" above).
  public init() {
    self.init(boundaryGenerator: Self.randomBoundary)
  }

  /// An empty form with a boundary of your choice, used as is.
  ///
  /// RFC 2046 allows 1 to 70 characters among letters, digits, space (not last) and `'()+_,-./:=?`; another
  /// boundary is recorded in ``recordedError``. A part holding `--` and the boundary is an error: recorded for
  /// in-memory parts, thrown while reading for files (see "Boundaries" above).
  /// - Parameter boundary: The boundary, without the leading `--`.
  public init(boundary: String) {
    self.boundary = boundary
    self.boundaryGenerator = nil
    if let problem = Self.problem(withBoundary: boundary) {
      recordedError = NetworkError(code: .encodingFailed, message: "the multipart boundary '\(boundary)' \(problem)")
    }
  }

  /// An empty form whose boundaries come from `boundaryGenerator` (a test hook to force collisions).
  init(boundaryGenerator: @escaping @Sendable () -> String) {
    self.boundary = boundaryGenerator()
    self.boundaryGenerator = boundaryGenerator
  }

  /// Whether file parts are scanned for the delimiter while read: for a boundary the caller chose, which anyone
  /// who knows it could plant in a file. A random boundary is drawn after the files were written and never sent
  /// before the body, so a file cannot hold it but by a chance of about 2^-190.
  var checksFileContent: Bool { boundaryGenerator == nil }

  /// The number of parts.
  public var count: Int { parts.count }

  /// The `Content-Type` header value: `multipart/form-data; boundary=…` (the boundary quoted when RFC 9110 needs it).
  public var contentType: String { headerValue(mediaType: "multipart/form-data") }

  /// The exact length of the encoded body in bytes, computed from the part headers and the file sizes taken when the
  /// files were appended; nothing is read. A part that could not be appended (see ``recordedError``) is not
  /// counted.
  public var contentLength: UInt64 {
    let delimiter = UInt64(boundary.utf8.count) + 4  // "--" boundary CRLF
    var total = delimiter + 2  // "--" boundary "--" CRLF
    for part in parts {
      total += delimiter + UInt64(part.headers.count) + part.content.length + 2
    }
    return total
  }

  /// A text field, written as UTF-8 without escaping and without a `Content-Type`.
  /// - Parameters:
  ///   - value: The text.
  ///   - name: The field name.
  public mutating func append(_ value: String, name: String) {
    add(Part(name: name, fileName: nil, mimeType: nil, content: .bytes(Data(value.utf8))))
  }

  /// A part of bytes in memory.
  /// - Parameters:
  ///   - data: The bytes.
  ///   - name: The field name.
  ///   - fileName: The `filename` parameter; none when `nil`.
  ///   - mimeType: The part's media type; `application/octet-stream` when `nil`.
  public mutating func append(_ data: Data, name: String, fileName: String? = nil, mimeType: String? = nil) {
    guard let mimeType = checked(mimeType ?? MultipartFile.octetStream, name: name) else { return }
    add(Part(name: name, fileName: fileName, mimeType: mimeType, content: .bytes(data)))
  }

  /// A file part, streamed from disk when the body is read. Only the file's size is read now.
  ///
  /// A file that cannot be found or is not a regular file is recorded in ``recordedError`` (code
  /// `NetworkError.Code.encodingFailed`, naming the path) and thrown by ``encode()`` and
  /// ``makeReader()``.
  /// - Parameters:
  ///   - url: A file URL.
  ///   - name: The field name.
  ///   - fileName: The `filename` parameter; the URL's last path component when `nil`.
  ///   - mimeType: The part's media type; guessed from the file name's extension (`jpg`, `png`, `pdf`, `json`, …)
  ///     when `nil`, else `application/octet-stream`.
  public mutating func append(fileAt url: URL, name: String, fileName: String? = nil, mimeType: String? = nil) {
    let fileName = fileName ?? url.lastPathComponent
    guard let mimeType = checked(mimeType ?? MultipartFile.guessMimeType(forFileName: fileName), name: name) else {
      return
    }
    do {
      let file = try FileBody(url: url)
      add(Part(name: name, fileName: fileName, mimeType: mimeType, content: .file(file)))
    } catch {
      record(NetworkError(code: .encodingFailed, message: "multipart part '\(name)': \(error.message)"))
    }
  }

  /// A ``MultipartFile``: a file on disk or bytes in memory.
  /// - Parameters:
  ///   - file: The file.
  ///   - name: The field name.
  public mutating func append(_ file: MultipartFile, name: String) {
    switch file.source {
    case .file(let url): append(fileAt: url, name: name, fileName: file.fileName, mimeType: file.mimeType)
    case .data(let data): append(data, name: name, fileName: file.fileName, mimeType: file.mimeType)
    }
  }

  /// The header value for a multipart media type with this form's boundary.
  func headerValue(mediaType: String) -> String {
    "\(mediaType); boundary=\(Self.parameterValue(boundary))"
  }

  private mutating func record(_ error: NetworkError) {
    if recordedError == nil { recordedError = error }
  }

  private mutating func checked(_ mimeType: String, name: String) -> String? {
    let isPlain = mimeType.unicodeScalars.allSatisfy { $0.isASCII && $0.value >= 0x20 && $0.value != 0x7F }
    if isPlain, (try? MediaType(parsing: mimeType)) != nil { return mimeType }
    record(
      NetworkError(
        code: .encodingFailed,
        message: "multipart part '\(name)': '\(mimeType)' is not a valid media type"
      )
    )
    return nil
  }

  private mutating func add(_ part: Part) {
    parts.append(part)
    guard let boundaryGenerator else {
      // A chosen boundary is never changed; only its delimiter, `--boundary`, would break the body.
      if part.contains("--" + boundary) {
        record(
          NetworkError(
            code: .encodingFailed,
            message: "the multipart delimiter '--\(boundary)' occurs in part '\(part.name)'; choose another boundary"
          )
        )
      }
      return
    }
    guard part.contains(boundary) else { return }
    // Bounded, so that a broken generator ends in an error instead of a hang.
    for _ in 0..<16 {
      boundary = boundaryGenerator()
      if !parts.contains(where: { $0.contains(boundary) }) { return }
    }
    record(
      NetworkError(code: .encodingFailed, message: "no multipart boundary could be found that occurs in no part")
    )
  }
}
