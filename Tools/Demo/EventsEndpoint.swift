import Malibu

/// The fault server's event streams (`Tools/servers/faults.py`), started by the events step.
enum EventsEndpoint: RequestConvertible {
  /// `POST /events/completion` with a JSON prompt: an LLM-style stream of `{"text": …}` events ending at `[DONE]`.
  case complete(prompt: String)
  /// `GET /events`: notifications that drop mid-event once, then resume from `Last-Event-ID`.
  case notifications
  /// `GET /ok`: is the server up?
  case ok

  /// The fault server's address: a loopback port picked when the step starts.
  static var baseUrl: (any URLStringConvertible)? { ServiceAddresses.events }

  var request: Request {
    switch self {
    case .complete(let prompt): .post("events/completion", parameters: ["prompt": prompt])
    case .notifications: .get("events")
    case .ok: .get("ok")
    }
  }
}

/// One event of the completion stream.
struct CompletionChunk: Decodable, Sendable {
  let text: String
}
