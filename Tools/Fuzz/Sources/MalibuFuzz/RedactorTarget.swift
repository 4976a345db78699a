import Foundation
import HTTPTypes

@testable import MalibuTransport

/// The redactor over hostile queries, headers, URLs and bodies: a secret's value never survives, and everything
/// else is kept as written.
enum RedactorTarget {
  static let redactor = Redactor()

  static func run(_ bytes: UnsafeRawBufferPointer) {
    var input = FuzzInput(bytes)
    let query = input.shortString()
    let headerName = input.shortString()
    let headerValue = input.shortString()
    let authority = input.shortString()
    let contentType = ["application/json", "application/x-www-form-urlencoded", "text/plain", "a/b+json"][
      input.choice(4)
    ]
    let body = input.rest()

    checkQuery(query)

    if let name = HTTPField.Name(headerName) {
      var fields = HTTPFields()
      fields.append(HTTPField(name: name, value: headerValue))
      let redacted = redactor.redact(fields)
      precondition(redacted.count == 1 && redacted[0].name == name, "a header field was added, lost or renamed")
      let expected = redactor.isSecret(headerName: headerName) ? Redactor.placeholder : fields[0].value
      precondition(redacted[0].value == expected, "a header value was redacted wrongly")
    }

    let request = HTTPRequest(method: .get, scheme: "https", authority: authority, path: "/p?\(query)#f")
    let url = redactor.redactedURL(of: request)
    // HTTPTypes turns characters a pseudo-header field may not hold into spaces: compare with what it kept.
    let keptAuthority = request.authority ?? ""
    let keptPath = request.path ?? ""
    if keptPath.hasPrefix("/p?"), keptPath.hasSuffix("#f"), keptPath.filter({ $0 == "#" }).count == 1 {
      let keptQuery = String(keptPath.dropFirst(3).dropLast(2))
      let shownAuthority =
        keptAuthority.lastIndex(of: "@").map { "\(Redactor.placeholder)\(keptAuthority[$0...])" } ?? keptAuthority
      precondition(
        url == "https://\(shownAuthority)/p?\(redactor.redact(query: keptQuery))#f",
        "user information or a secret query value survived in the URL: \(url)"
      )
    }
    let secrets = redactor.secretValues(of: request)
    precondition(zip(secrets, secrets.dropFirst()).allSatisfy { $0.count >= $1.count }, "secrets not longest first")

    if let json = redactor.redact(json: body) {
      checkJSON(json)
    }
    if let preview = redactor.preview(of: body, contentType: contentType), contentType.hasSuffix("json") {
      precondition(preview.count <= redactor.bodyPreviewLimit + 40, "a preview longer than the limit")
    }
  }

  /// Each pair keeps its place; a secret key's value is the placeholder, every other pair is as written. Pairs are
  /// split by Unicode scalars: `&` or `=` followed by a combining mark is still a delimiter.
  private static func checkQuery(_ query: String) {
    let redacted = redactor.redact(query: query)
    let before = query.unicodeScalars.split(separator: "&", omittingEmptySubsequences: false)
    let after = redacted.unicodeScalars.split(separator: "&", omittingEmptySubsequences: false)
    precondition(before.count == after.count, "pairs were added or lost")
    for (pair, out) in zip(before, after) {
      let pairText = String(Substring(pair))
      let outText = String(Substring(out))
      guard let equals = pair.firstIndex(of: "=") else {
        precondition(pairText.utf8.elementsEqual(outText.utf8), "a pair without '=' changed")
        continue
      }
      let rawName = String(Substring(pair[..<equals]))
      let name = rawName.replacingOccurrences(of: "+", with: " ")
      if redactor.isSecret(parameterKey: name.removingPercentEncoding ?? name) {
        precondition(outText.utf8.elementsEqual("\(rawName)=\(Redactor.placeholder)".utf8), "a secret value survived")
      } else {
        precondition(pairText.utf8.elementsEqual(outText.utf8), "a pair that is not secret changed")
      }
    }
  }

  /// Every member with a secret key, at any depth, holds the placeholder.
  private static func checkJSON(_ text: String) {
    guard let value = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]) else {
      fatalError("the redacted JSON does not parse")
    }
    var pending: [Any] = [value]
    while let next = pending.popLast() {
      if let object = next as? [String: Any] {
        for (key, member) in object {
          if redactor.isSecret(parameterKey: key) {
            precondition(member as? String == Redactor.placeholder, "a secret JSON member survived")
          } else {
            pending.append(member)
          }
        }
      } else if let array = next as? [Any] {
        pending.append(contentsOf: array)
      }
    }
  }
}
