import Foundation
import MalibuCore

extension MultipartFormData {
  /// One part: its header block (ending with the empty line) and its content.
  struct Part: Sendable {
    /// The field name, for error messages.
    let name: String
    /// `Content-Disposition` and `Content-Type` lines, then CRLF.
    let headers: Data
    let content: Content

    init(name: String, fileName: String?, mimeType: String?, content: Content) {
      var text = "Content-Disposition: form-data; name=\"\(Self.escape(name))\""
      if let fileName { text += "; filename=\"\(Self.escape(fileName))\"" }
      text += "\r\n"
      if let mimeType { text += "Content-Type: \(mimeType)\r\n" }
      text += "\r\n"
      self.name = name
      self.headers = Data(text.utf8)
      self.content = content
    }

    /// Whether the boundary occurs in the part's in-memory bytes (headers, and content unless it is a file).
    func contains(_ boundary: String) -> Bool {
      let needle = Data(boundary.utf8)
      if headers.range(of: needle) != nil { return true }
      if case .bytes(let bytes) = content { return bytes.range(of: needle) != nil }
      return false
    }

    /// The HTML standard's escaping of names and file names in `Content-Disposition`.
    static func escape(_ text: String) -> String {
      guard text.utf8.contains(where: { $0 == 0x22 || $0 == 0x0D || $0 == 0x0A }) else { return text }
      var result = ""
      for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": result += "%22"
        case "\r": result += "%0D"
        case "\n": result += "%0A"
        default: result.unicodeScalars.append(scalar)
        }
      }
      return result
    }
  }

  /// Where a part's content comes from.
  enum Content: Sendable {
    case bytes(Data)
    case file(FileBody)

    var length: UInt64 {
      switch self {
      case .bytes(let data): return UInt64(data.count)
      case .file(let file): return file.length ?? 0
      }
    }
  }
}
