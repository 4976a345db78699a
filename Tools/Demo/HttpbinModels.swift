/// What `GET /json` returns: `{"slideshow": {...}}`.
struct SlideshowDocument: Decodable, Sendable {
  var slideshow: Slideshow
}

/// httpbin's sample slideshow.
struct Slideshow: Decodable, Sendable {
  /// One slide.
  struct Slide: Decodable, Sendable {
    var title: String
  }

  var title: String
  var author: String
  var slides: [Slide]
}

/// A board, as the tour posts it and as the mock answers it.
struct Board: Codable, Sendable, Equatable {
  var id: Int?
  var title: String
  var type: Int
}

/// httpbin's echo of a request (`/get`, `/post`): what it received, with the JSON body decoded as `JSONBody`.
struct HttpbinEcho<JSONBody: Decodable & Sendable>: Decodable, Sendable {
  var url: String
  var args: [String: String]
  var headers: [String: String]
  var json: JSONBody?
  var form: [String: String]?
  var files: [String: String]?
}

/// The JSON body of the outbox's stored note.
struct Note: Decodable, Sendable {
  var note: String
}

/// What `GET /gzip` returns once inflated.
struct GzipEcho: Decodable, Sendable {
  var gzipped: Bool
  var method: String
}

/// What `GET /uuid` returns.
struct UUIDEcho: Decodable, Sendable {
  var uuid: String
}

/// What `GET /cookies` returns: the cookies the request carried, by name.
struct CookiesEcho: Decodable, Sendable {
  var cookies: [String: String]
}
