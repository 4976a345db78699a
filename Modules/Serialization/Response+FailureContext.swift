import HTTPTypes
import MalibuCore

extension Response {
  /// How many bytes of the body a decoding error quotes.
  static let previewLimit = 200

  /// What a decoding failure adds to its sentence: the status, the `Content-Type`, the body's length and its first
  /// ``previewLimit`` bytes, then, for a status outside 200–299, the hint to call `validate()`. Request header
  /// fields never appear.
  var failureContext: String {
    let contentType = headers[values: .contentType].first.map { "Content-Type '\($0)'" } ?? "no Content-Type"
    var text = "; the response has status \(statusCode), \(contentType) and a body of \(data.count) bytes"
    if !data.isEmpty {
      let shown = data.prefix(Self.previewLimit)
      let quoted = String(reflecting: String(decoding: shown, as: UTF8.self))
      text += data.count > shown.count ? ", the first \(shown.count) of them: \(quoted)…" : ": \(quoted)"
    }
    return text + validateHint
  }

  /// `""` for a 2xx status; otherwise a reminder that without `validate()` any status is a success.
  var validateHint: String {
    guard !(200..<300).contains(statusCode) else { return "" }
    return ". A \(statusCode) status is not an error until you call validate(): call it before decoding "
      + "(`.validate().decode(…)`) to fail with unacceptableStatusCode instead"
  }
}
