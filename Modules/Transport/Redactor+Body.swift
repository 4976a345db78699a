public import Foundation

extension Redactor {
  /// Bodies larger than this are never parsed for a preview.
  static let largestInspectedBody = 256 * 1024

  /// A redacted, truncated text preview of a request body, or `nil` when it is not shown.
  ///
  /// JSON (`application/json`, `*/*+json`) is parsed, secret members are replaced at any depth and it is written
  /// again with sorted keys; form bodies (`application/x-www-form-urlencoded`) are redacted like a query; other
  /// `text/*` bodies are shown as they are. Binary and multipart bodies, bodies that are not valid JSON or UTF-8,
  /// and bodies over 256 KiB are not shown.
  /// - Parameters:
  ///   - body: The body bytes.
  ///   - contentType: The request's `Content-Type`.
  /// - Returns: The preview, cut to ``bodyPreviewLimit`` characters.
  public func preview(of body: Data, contentType: String?) -> String? {
    guard bodyPreviewLimit > 0, !body.isEmpty, body.count <= Self.largestInspectedBody, let contentType else {
      return nil
    }
    let mediaType = Self.mediaType(of: contentType)
    let text: String?
    if Self.isJSON(mediaType) {
      text = redact(json: body)
    } else if mediaType == "application/x-www-form-urlencoded" {
      text = String(data: body, encoding: .utf8).map { redact(query: $0) }
    } else if mediaType.hasPrefix("text/") {
      text = String(data: body, encoding: .utf8)
    } else {
      text = nil
    }
    return text.map(truncated)
  }

  /// A `Content-Type`'s media type, lower-cased, without parameters; empty for none.
  package static func mediaType(of contentType: String?) -> String {
    contentType?.split(separator: ";", maxSplits: 1).first?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
  }

  /// Whether a media type (as ``mediaType(of:)`` gives it) is JSON: `application/json` or `*/*+json`.
  package static func isJSON(_ mediaType: String) -> Bool {
    mediaType == "application/json" || mediaType.hasSuffix("+json")
  }

  /// A JSON document with the values of secret members replaced at any depth.
  /// - Parameter json: The document.
  /// - Returns: The redacted document with sorted keys, or `nil` when it is not valid JSON.
  public func redact(json: Data) -> String? {
    guard let object = try? JSONSerialization.jsonObject(with: json, options: [.fragmentsAllowed]) else {
      return nil
    }
    let redacted = redact(jsonValue: object)
    guard
      let data = try? JSONSerialization.data(
        withJSONObject: redacted,
        options: [.sortedKeys, .withoutEscapingSlashes, .fragmentsAllowed]
      )
    else { return nil }
    return String(data: data, encoding: .utf8)
  }

  private func redact(jsonValue: Any) -> Any {
    if let object = jsonValue as? [String: Any] {
      var result: [String: Any] = [:]
      for (key, value) in object {
        result[key] = isSecret(parameterKey: key) ? Self.placeholder : redact(jsonValue: value)
      }
      return result
    }
    if let array = jsonValue as? [Any] {
      return array.map { redact(jsonValue: $0) }
    }
    return jsonValue
  }

  private func truncated(_ text: String) -> String {
    guard text.count > bodyPreviewLimit else { return text }
    let kept = text.prefix(bodyPreviewLimit)
    return "\(kept)… (\(text.count - bodyPreviewLimit) more characters)"
  }
}
