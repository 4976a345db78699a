import Foundation
public import Malibu

extension Formatter {
  /// One server-sent event as `surf --stream` prints it: its lines as a server writes them (`event` when not a
  /// message, `id`, `retry`, one `data` line per line), field names coloured when asked, then a blank line.
  /// - Parameter event: The event.
  /// - Returns: The block of text.
  public func event(_ event: ServerSentEvent) -> String {
    guard pretty.colors else { return event.text }
    return event.text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
      guard let colon = line.firstIndex(of: ":") else { return String(line) }
      return paint(String(line[..<colon]), .blue) + line[colon...]
    }.joined(separator: "\n")
  }
}

extension Surf {
  /// `--stream`, as HTTPie's: the request is sent once and the body printed as it arrives, chunk by chunk; a
  /// `text/event-stream` is printed event by event (``Formatter/event(_:)``), each as soon as its blank line
  /// comes. The response head is printed first when selected (the request's head is not: `--stream` prints what
  /// comes back). A connection that drops ends the run with its error after what arrived; nothing reconnects.
  /// - Parameters:
  ///   - endpoint: The request.
  ///   - spec: The command line's request, named in errors.
  ///   - networking: The networking to send it with.
  ///   - options: The options (`--print`, `--pretty`, `--check-status`).
  ///   - output: Where the text goes, piece by piece as it arrives (standard output for the command).
  /// - Returns: The exit status.
  /// - Throws: ``SurfError`` when the request fails or the body breaks off.
  func stream(
    _ endpoint: SurfEndpoint,
    spec: RequestSpec,
    networking: Networking<SurfEndpoint>,
    options: SurfOptions,
    output: (Data) -> Void
  ) async throws(SurfError) -> SurfExitStatus {
    let response: StreamedResponse
    do {
      response = try await networking.stream(endpoint)
    } catch {
      throw failure(error, options: options, spec: spec)
    }
    let selection = options.print ?? .standard(terminal: console.outputIsTerminal)
    let formatter = Formatter(
      pretty: options.pretty ?? Pretty(colors: console.outputIsTerminal, format: console.outputIsTerminal)
    )
    if selection.responseHead { output(Data(formatter.responseHead(response.head).utf8)) }
    if selection.responseBody {
      let mediaType = response.head.headerFields[.contentType]?.split(separator: ";").first?
        .trimmingCharacters(in: .whitespaces).lowercased()
      var events = mediaType == "text/event-stream" ? ServerSentEventParser() : nil
      do {
        for try await chunk in response.body {
          guard var parser = events else {
            output(chunk)
            continue
          }
          for event in parser.parse(chunk) { output(Data(formatter.event(event).utf8)) }
          events = parser
        }
      } catch {
        throw failure(error, options: options, spec: spec)
      }
    }
    return checked(response.statusCode, options: options)
  }

  /// Refuses `--stream` beside an option it cannot work with.
  /// - Parameter options: The options.
  /// - Throws: A usage ``SurfError`` for `--stream` with `--download` (a download writes a file; `--stream` prints).
  static func checkStream(_ options: SurfOptions) throws(SurfError) {
    if options.stream, options.download {
      throw SurfError.usage("--stream prints the body as it arrives; it cannot be combined with --download")
    }
  }
}
