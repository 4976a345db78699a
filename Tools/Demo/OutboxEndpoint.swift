import Malibu

/// A second service, down when the offline step starts: its `send` requests are marked `storePolicy: .offline`, so
/// Malibu keeps them when the host cannot be reached and sends them again on `replay()`.
enum OutboxEndpoint: RequestConvertible {
  /// `POST /post` with a JSON note; stored for later when the service is unreachable.
  case send(note: String)
  /// `GET /get`: is the service up?
  case ping

  /// The outbox's address: a loopback port picked when the step starts (another httpbin serves it later).
  static var baseUrl: (any URLStringConvertible)? { ServiceAddresses.outbox }

  var request: Request {
    switch self {
    case .send(let note):
      return .post("post", parameters: ["note": note], storePolicy: .offline)
    case .ping:
      return .get("get")
    }
  }
}
