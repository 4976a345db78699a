import Malibu

/// An endpoint enum (``HttpbinEndpoint``) and a promise chain: `GET /get?…`, validated, turned into a JSON
/// dictionary, mapped with `then`, and awaited with `.value` at the end.
enum EndpointStep {
  static func run(_ options: DemoOptions) async throws {
    let networking = Networking<HttpbinEndpoint>()
    let query = ["board": "longboard", "wave": "malibu"]
    let (args, elapsed) = try await timed {
      try await networking.request(.echo(parameters: query))
        .validate()
        .toJsonDictionary()
        .then { echo in echo["args"] as? [String: any Sendable] ?? [:] }
        .value
    }
    let echoed = args.compactMapValues { $0 as? String }
    try expect(echoed == query, "httpbin echoed the query as \(args), expected \(query)")
    let shown = echoed.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ")
    report("GET /get?board=longboard&wave=malibu → 200; httpbin echoed args {\(shown)} in \(elapsed.shortDescription)")
  }
}
