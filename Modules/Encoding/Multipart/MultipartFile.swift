public import Foundation

/// A file part of a multipart form, passed as a parameter value to ``MultipartFormEncoder``: a file on disk
/// (streamed, never loaded whole) or bytes in memory, with the file name and media type the server sees.
///
/// ```swift
/// let request = Request.upload(
///   multipartParameters: [
///     "title": "Balsa",
///     "photo": MultipartFile(url: URL(fileURLWithPath: "/tmp/photo.jpg"), mimeType: "image/jpeg"),
///   ],
///   to: "boards")
/// ```
///
/// It is not `Encodable` on purpose: passing one to the JSON or form encoder is an
/// `NetworkError.Code.unsupportedParameter` error instead of a file path silently sent as text.
public struct MultipartFile: Hashable, Sendable {
  /// Where the part's bytes come from.
  public enum Source: Hashable, Sendable {
    /// A file on disk, read while the body is sent.
    case file(URL)
    /// Bytes in memory.
    case data(Data)
  }

  /// Where the part's bytes come from.
  public var source: Source
  /// The `filename` parameter of the part; for a file, its last path component when `nil`.
  public var fileName: String?
  /// The part's `Content-Type`; guessed from the file name's extension when `nil` (see
  /// ``MultipartFormData/append(fileAt:name:fileName:mimeType:)``), `application/octet-stream` for data.
  public var mimeType: String?

  /// A file on disk.
  /// - Parameters:
  ///   - url: A file URL.
  ///   - fileName: The name the server sees; the URL's last path component when `nil`.
  ///   - mimeType: The part's media type; guessed from the extension when `nil`.
  public init(url: URL, fileName: String? = nil, mimeType: String? = nil) {
    self.source = .file(url)
    self.fileName = fileName
    self.mimeType = mimeType
  }

  /// Bytes in memory, sent as a file.
  /// - Parameters:
  ///   - data: The bytes.
  ///   - fileName: The name the server sees; none when `nil`.
  ///   - mimeType: The part's media type; `application/octet-stream` when `nil`.
  public init(data: Data, fileName: String? = nil, mimeType: String? = nil) {
    self.source = .data(data)
    self.fileName = fileName
    self.mimeType = mimeType
  }
}

extension MultipartFile {
  /// Media types for common file extensions, used when a file part names none.
  static func guessMimeType(forFileName fileName: String) -> String {
    guard let dot = fileName.lastIndex(of: "."), dot != fileName.startIndex else { return octetStream }
    return mimeTypes[fileName[fileName.index(after: dot)...].lowercased()] ?? octetStream
  }

  static let octetStream = "application/octet-stream"

  private static let mimeTypes: [String: String] = [
    "avif": "image/avif", "bmp": "image/bmp", "css": "text/css", "csv": "text/csv", "gif": "image/gif",
    "gz": "application/gzip", "heic": "image/heic", "htm": "text/html", "html": "text/html", "ico": "image/x-icon",
    "jpeg": "image/jpeg", "jpg": "image/jpeg", "js": "text/javascript", "json": "application/json",
    "m4a": "audio/mp4", "md": "text/markdown", "mov": "video/quicktime", "mp3": "audio/mpeg", "mp4": "video/mp4",
    "pdf": "application/pdf", "png": "image/png", "svg": "image/svg+xml", "tar": "application/x-tar",
    "tif": "image/tiff", "tiff": "image/tiff", "txt": "text/plain", "wav": "audio/wav", "webm": "video/webm",
    "webp": "image/webp", "xml": "application/xml", "zip": "application/zip",
  ]
}
