import ArgumentParser
import SurfCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `surf`: an HTTPie-like command line on Malibu.
@main
struct SurfCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "surf",
    abstract: "Send HTTP requests from the command line, with Malibu.",
    usage: """
      surf [METHOD] URL [ITEM …] [<options>]   (surf send --help: the options)
      surf replay
      """,
    discussion: """
      ITEM: Header:Value, name==query, field=value, field:=json, field=@file, field:=@file, field@file (a multipart \
      file), @file (the body). JSON field names are HTTPie 3's nested paths: a[b]=c, a[]:=1, a[0]=x.

      Exit status: 0 done, 1 error, 2 timeout, 3/4/5 a 3xx/4xx/5xx response with --check-status, 6 too many \
      redirects, 7 stored by --store-if-unreachable, 64 a command line that does not parse, 130 interrupted.
      """,
    subcommands: [Send.self, Replay.self],
    defaultSubcommand: Send.self,
    // HTTPie's: `-h` is `--headers`, help is `--help` alone.
    helpNames: [.long]
  )
}

/// Ends the process with a message on standard error when the run failed.
func finish(_ run: () async throws(SurfError) -> SurfExitStatus) async throws {
  let status: SurfExitStatus
  do {
    status = try await run()
  } catch {
    Console.standard.error("surf: \(error.message)\n")
    status = error.status
  }
  if status != .success { throw ExitCode(status.rawValue) }
}

struct Send: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "send",
    abstract: "Send a request: surf [METHOD] URL [ITEM …] (the default command).",
    helpNames: [.long]
  )

  @Flag(name: [.short, .long], help: "Data items make a form (multipart with file fields), not JSON.")
  var form = false
  @Flag(help: "Data items make a multipart form.")
  var multipart = false
  @Option(name: [.short, .long], help: "What to print: H request head, B request body, h response head, b body.")
  var print: String?
  @Flag(name: [.short, .long], help: "Print the whole exchange (--print HBhb).")
  var verbose = false
  @Flag(name: [.customShort("h"), .long], help: "Print only the response headers (--print h).")
  var headers = false
  @Option(help: "all, colors, format or none (default: all on a terminal, none when piped).")
  var pretty: String?
  @Flag(help: "Exit with 3, 4 or 5 on a 3xx, 4xx or 5xx response.")
  var checkStatus = false
  @Flag(name: [.short, .long], help: "Download the body into a file, with a progress bar on a terminal.")
  var download = false
  @Flag(name: [.customShort("c"), .customLong("continue")], help: "Resume a partial download.")
  var resume = false
  @Option(help: "The largest file a download writes: bytes, or with K, M or G (1024-based), e.g. 500M.")
  var maxDownloadSize: String?
  @Option(name: [.short, .long], help: "The download's file.")
  var output: String?
  @Option(name: [.short, .long], help: "user:password, or a token with --auth-type bearer.")
  var auth: String?
  @Option(name: [.customShort("A"), .long], help: "basic or bearer.")
  var authType = "basic"
  @Option(help: "Keep cookies and credentials between runs under this name.")
  var session: String?
  @Flag(name: [.customShort("F"), .long], help: "Follow redirects.")
  var follow = false
  @Option(help: "The most redirects followed with --follow.")
  var maxRedirects = 30
  @Option(help: "Seconds to wait to connect, and for data to move.")
  var timeout: Double?
  @Option(help: "yes, no (do not check certificates) or a CA bundle's path.")
  var verify = "yes"
  @Option(help: "An extra CA bundle (PEM) to trust.")
  var cacert: String?
  @Option(help: "The server's public-key pin, sha256//BASE64.")
  var pin: String?
  @Option(help: "curl or urlsession.")
  var transport = "curl"
  @Option(help: "Retry a failed idempotent request this many times.")
  var retry = 0
  @Flag(help: "Build the request and print it without sending it (a dry run; --print HB unless told otherwise).")
  var offline = false
  @Flag(help: "Store the request for `surf replay` when the host cannot be reached (what --offline did in 0.1).")
  var storeIfUnreachable = false
  @Flag(help: "Connect only to public internet addresses (no loopback, private or link-local), redirects included.")
  var publicOnly = false
  @Option(help: "Send the request and add the exchange to the cassette in this directory.")
  var record: String?
  @Option(help: "Answer from the cassette in this directory, never touching the network.")
  var replay: String?
  @Flag(help: "Never read standard input as the body.")
  var ignoreStdin = false
  @Flag(name: [.customShort("S"), .long], help: "Print the body as it arrives; server-sent events one by one.")
  var stream = false
  @Flag(help: "Print a line of the transfer's timings after the response: DNS, connect, TLS, first byte, total.")
  var meta = false
  @Argument(help: "[METHOD] URL [ITEM …]")
  var request: [String] = []

  func run() async throws {
    installInterruptHandler()
    try await finish { () async throws(SurfError) -> SurfExitStatus in
      var options = SurfOptions()
      options.style = multipart ? .multipart : form ? .form : .json
      if verbose { options.print = .verbose }
      if headers { options.print = .responseHeaders }
      if let print { options.print = try PrintSelection(letters: print) }
      if let pretty { options.pretty = try Pretty(name: pretty) }
      options.checkStatus = checkStatus
      options.download = download
      options.resume = resume
      if let maxDownloadSize { options.maxDownloadSize = try SurfOptions.byteCount(maxDownloadSize) }
      options.output = output
      options.auth = auth
      options.authType = authType
      options.session = session
      options.follow = follow
      options.maxRedirects = maxRedirects
      options.timeout = timeout
      options.verify = verify
      options.caFile = cacert
      options.pin = pin
      options.transport = transport
      options.retries = retry
      options.offline = offline
      options.storeIfUnreachable = storeIfUnreachable
      options.publicOnly = publicOnly
      options.record = record
      options.replay = replay
      options.ignoreStandardInput = ignoreStdin
      options.stream = stream
      options.meta = meta
      return try await Surf().send(request, options: options)
    }
  }
}

struct Replay: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract:
      "Send the requests --store-if-unreachable stored, oldest first; those whose host is still unreachable stay.",
    helpNames: [.long]
  )

  @Option(help: "curl or urlsession.")
  var transport = "curl"

  func run() async throws {
    try await finish { () async throws(SurfError) -> SurfExitStatus in try await Surf().replay(transport: transport) }
  }
}

/// Ctrl-C: clear a progress bar's line and exit 130 (a resumable download keeps its partial file).
func installInterruptHandler() {
  signal(SIGINT) { _ in
    // Only async-signal-safe calls, and no allocation: a static string's bytes, write(2), _exit(2).
    if isatty(2) == 1 {
      let clear: StaticString = "\r\u{1B}[2K"
      _ = write(2, clear.utf8Start, clear.utf8CodeUnitCount)
    }
    _exit(130)
  }
}
