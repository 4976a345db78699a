public import MalibuCore

/// The endpoint enum of API.md and the README (host 127.0.0.1), shared by the Core and facade tests.
public enum SharkywatersEndpoint: RequestConvertible {
  /// `GET boards`.
  case fetchBoards
  /// `GET boards/<id>`.
  case showBoard(id: Int)
  /// `POST boards` with a JSON body of `type` and `title`.
  case createBoard(type: Int, title: String)
  /// `PATCH boards/<id>` with a JSON body of `title`.
  case updateBoard(id: Int, title: String)
  /// `DELETE boards/<id>`.
  case deleteBoard(id: Int)

  /// `http://127.0.0.1:8080/api/`.
  public static let baseUrl: (any URLStringConvertible)? = "http://127.0.0.1:8080/api/"
  /// `Accept: application/json`.
  public static let headers: [String: String] = ["Accept": "application/json"]

  /// The request of each case.
  public var request: Request {
    switch self {
    case .fetchBoards: return .get("boards")
    case .showBoard(let id): return .get("boards/\(id)")
    case .createBoard(let type, let title): return .post("boards", parameters: ["type": type, "title": title])
    case .updateBoard(let id, let title): return .patch("boards/\(id)", parameters: ["title": title])
    case .deleteBoard(let id): return .delete("boards/\(id)")
    }
  }
}
