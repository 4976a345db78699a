import Malibu

/// The httpbin endpoints the tour calls: the usual way to describe an API with Malibu, one case per endpoint.
///
/// Each case says what it sends in `request`; the networking joins it to `baseUrl`, adds `headers`, encodes the
/// parameters (query, JSON or multipart, by content type) and sends it.
enum HttpbinEndpoint: RequestConvertible {
  /// `GET /get?…`: httpbin echoes the query back in `args`.
  case echo(parameters: [String: String])
  /// `GET /json`: a fixed JSON document, a slideshow.
  case slideshow
  /// `GET /status/<code>`: an empty answer with that status.
  case status(Int)
  /// `POST /post` with a JSON body: httpbin echoes it back in `json`.
  case createBoard(title: String, type: Int)
  /// `POST /post` with a `multipart/form-data` body: fields come back in `form`, file parts in `files`.
  case uploadPhoto(title: String, photo: MultipartFile)
  /// `GET /gzip`: a JSON answer sent with `Content-Encoding: gzip`.
  case gzip
  /// `GET /uuid`: a fresh UUID.
  case uuid
  /// `GET /boards/<id>`: httpbin has no such route (404); the mock step answers it with a `MockProvider`.
  case board(id: Int)
  /// `GET /delay/<seconds>`: answers after that many seconds.
  case delay(seconds: Int)
  /// `POST /anything` with a `Codable` value as its JSON body: httpbin echoes it back in `json`.
  case anything(Board)
  /// `GET /cookies/set?<name>=<value>`: sets that cookie, then redirects to `/cookies`.
  case setCookie(name: String, value: String)
  /// `GET /cookies`: the cookies the request carried.
  case cookies
  /// `GET /bytes/<count>`: that many random bytes (httpbin sends at most 100 KiB).
  case bytes(Int)
  /// `GET /drip?numbytes=<count>&duration=<seconds>`: the bytes one by one, spread over that many seconds.
  case drip(bytes: Int, seconds: Int)
  /// `GET /etag/<tag>`: an answer with `ETag: <tag>`, or `304 Not Modified` when `If-None-Match` names it; the
  /// request sends `ifNoneMatch` itself when given.
  case etag(String, ifNoneMatch: String? = nil)

  /// httpbin's address. A real app writes a constant here; the demo learns the port when it starts.
  static var baseUrl: (any URLStringConvertible)? { ServiceAddresses.httpbin }

  /// Sent with every request of this service.
  static let headers = ["Accept": "application/json"]

  var request: Request {
    switch self {
    case .echo(let parameters):
      return .get("get", parameters: parameters)
    case .slideshow:
      return .get("json")
    case .status(let code):
      return .get("status/\(code)")
    case .createBoard(let title, let type):
      return .post("post", parameters: ["title": title, "type": type])
    case .uploadPhoto(let title, let photo):
      return .upload(multipartParameters: ["title": title, "photo": photo], to: "post")
    case .gzip:
      return .get("gzip")
    case .uuid:
      return .get("uuid")
    case .board(let id):
      return .get("boards/\(id)")
    case .delay(let seconds):
      return .get("delay/\(seconds)")
    case .anything(let board):
      return .post("anything", body: board)
    case .setCookie(let name, let value):
      return .get("cookies/set", parameters: [name: value])
    case .cookies:
      return .get("cookies")
    case .bytes(let count):
      return .get("bytes/\(count)")
    case .drip(let count, let seconds):
      return .get("drip", parameters: ["numbytes": count, "duration": seconds, "delay": 0])
    case .etag(let tag, let ifNoneMatch):
      return .get("etag/\(tag)", headers: ifNoneMatch.map { ["If-None-Match": $0] } ?? [:])
    }
  }
}
