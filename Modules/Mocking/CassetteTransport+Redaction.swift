import Foundation
internal import HTTPTypes
internal import MalibuTransport

/// What a cassette keeps of an exchange: the logs' redaction rules (`Redactor`: secret headers, query values, JSON
/// members and form fields), and on top the secret values of the request wherever else they appear (a server that
/// echoes a token in its body), so that no secret reaches the disk.
struct CassetteRedaction: Sendable {
  let redactor: Redactor
  /// Lowercased names of the header fields left out of a cassette.
  let ignoredHeaderNames: Set<String>

  init(redactor: Redactor, ignoredHeaderNames: Set<String>) {
    self.redactor = redactor
    self.ignoredHeaderNames = Set(ignoredHeaderNames.map { $0.lowercased() })
  }

  /// The longest text of a request body kept in its entry.
  static let largestRequestText = 4096

  /// The secret values of a request, longest first: the redactor's (secret header values, credentials, secret query
  /// values, user information) and each cookie's value.
  func secrets(of request: HTTPRequest) -> [String] {
    var values = Set(redactor.secretValues(of: request))
    for cookie in request.headerFields[values: .cookie] {
      for pair in cookie.split(separator: ";") {
        guard let equals = pair.firstIndex(of: "=") else { continue }
        let value = pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        if value.count >= 4 { values.insert(value) }
      }
    }
    return values.sorted { $0.count > $1.count }
  }

  /// The values of a request body's secret JSON members (at any depth) and form fields: a server may echo the body
  /// as text, where no member name marks them.
  func secrets(ofBody body: Data?, contentType: String?) -> [String] {
    guard let body, !body.isEmpty else { return [] }
    let mediaType = Redactor.mediaType(of: contentType)
    var values: [String] = []
    if Redactor.isJSON(mediaType),
      let object = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed])
    {
      func collect(_ value: Any, secret: Bool) {
        if let object = value as? [String: Any] {
          for (key, member) in object { collect(member, secret: secret || redactor.isSecret(parameterKey: key)) }
        } else if let array = value as? [Any] {
          for element in array { collect(element, secret: secret) }
        } else if secret, let text = value as? String {
          values.append(text)
        } else if secret, let number = value as? NSNumber {
          values.append(number.stringValue)
        }
      }
      collect(object, secret: false)
    } else if mediaType == "application/x-www-form-urlencoded", let text = String(data: body, encoding: .utf8) {
      for pair in text.split(separator: "&") {
        guard let equals = pair.firstIndex(of: "=") else { continue }
        let name = String(pair[..<equals]).replacingOccurrences(of: "+", with: " ")
        guard redactor.isSecret(parameterKey: name.removingPercentEncoding ?? name) else { continue }
        let value = String(pair[pair.index(after: equals)...])
        values.append(value)
        values.append(value.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? value)
      }
    }
    return values.filter { $0.count >= 4 }
  }

  /// The values of the cookies a response sets: secrets for its own entry.
  func secrets(setBy response: HTTPResponse) -> [String] {
    response.headerFields[values: .setCookie].compactMap { cookie in
      let pair = cookie.prefix { $0 != ";" }
      guard let equals = pair.firstIndex(of: "=") else { return nil }
      let value = pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces)
      return value.count >= 4 ? value : nil
    }
  }

  /// The request as a cassette keeps and matches it.
  func request(_ head: HTTPRequest, body: Data?, secrets: [String]) -> CassetteRequest {
    let url = scrub(redactor.redactedURL(of: head), secrets)
    let kept = body.map { redacted($0, contentType: head.headerFields[.contentType], secrets: secrets) }
    return CassetteRequest(
      method: head.method.rawValue,
      url: url,
      headers: headers(head.headerFields, secrets: secrets),
      body: kept.map { data in
        let text = data.count <= Self.largestRequestText ? String(data: data, encoding: .utf8) : nil
        return CassetteRequest.Body(size: data.count, sha256: SHA256Digest.hex(data), text: text)
      }
    )
  }

  /// Header fields with secret values redacted and the ignored ones left out.
  func headers(_ fields: HTTPFields, secrets: [String]) -> [CassetteHeader] {
    redactor.redact(fields).compactMap { field in
      guard !ignoredHeaderNames.contains(field.name.canonicalName) else { return nil }
      return CassetteHeader(name: field.name.rawName, value: scrub(field.value, secrets))
    }
  }

  /// A text with every secret value replaced by `Redactor.placeholder`.
  func scrub(_ text: String, _ secrets: [String]) -> String {
    var text = text
    for secret in secrets where text.contains(secret) {
      text = text.replacingOccurrences(of: secret, with: Redactor.placeholder)
    }
    return text
  }

  /// A body with its secrets redacted: the members of a JSON body and the fields of a form whose names are secret,
  /// then every secret value of the request wherever it appears. A body with no secret is kept byte for byte.
  func redacted(_ body: Data, contentType: String?, secrets: [String]) -> Data {
    var body = body
    let mediaType = Redactor.mediaType(of: contentType)
    if Redactor.isJSON(mediaType), hasSecretMember(body),
      let text = redactor.redact(json: body)
    {
      body = Data(text.utf8)
    } else if mediaType == "application/x-www-form-urlencoded", let text = String(data: body, encoding: .utf8) {
      let redacted = redactor.redact(query: text)
      if redacted != text { body = Data(redacted.utf8) }
    }
    for secret in secrets {
      body = body.replacing(Data(secret.utf8), with: Data(Redactor.placeholder.utf8))
    }
    return body
  }

  private func hasSecretMember(_ json: Data) -> Bool {
    guard let object = try? JSONSerialization.jsonObject(with: json, options: [.fragmentsAllowed]) else { return false }
    func search(_ value: Any) -> Bool {
      if let object = value as? [String: Any] {
        return object.contains { redactor.isSecret(parameterKey: $0.key) || search($0.value) }
      }
      if let array = value as? [Any] { return array.contains(where: search) }
      return false
    }
    return search(object)
  }
}
