package import Foundation

/// Where a response came from, as its transport knows it: the URL's text, which becomes a `URL` only when read, or a
/// `URL` already made. Parsing a URL costs about as much as reading a small response's head, and most callers never
/// ask for it, so responses keep the text and parse it on each read (see `Response.url`).
package struct ResponseLocation: Sendable {
  private enum Form: Sendable {
    case text(String)
    case parsed(URL?)
  }

  private let form: Form

  /// A location held as text, parsed on each read of ``url``.
  /// - Parameter text: An absolute URL.
  package init(text: String) {
    form = .text(text)
  }

  /// A location held as a `URL`.
  /// - Parameter url: The URL, or `nil` when unknown.
  package init(_ url: URL?) {
    form = .parsed(url)
  }

  /// The URL: parsed from the text when the location holds text.
  package var url: URL? {
    switch form {
    case .text(let text): URL(string: text)
    case .parsed(let url): url
    }
  }
}
