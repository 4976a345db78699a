import Foundation
import MalibuTestSupport
import Testing

/// The built `surf` binary against the local httpbin: one process per run, in a sandbox (working directory, `HOME`
/// and `XDG_CONFIG_HOME` of its own).
@Suite(.serialized) struct SurfEndToEndTests {
  let sandbox: SurfSandbox

  init() throws {
    sandbox = try SurfSandbox()
  }

  func url(_ path: String) async throws -> String {
    try await Servers.httpbin(path).absoluteString
  }

  @Test func queryItemsGoIntoTheURL() async throws {
    defer { sandbox.remove() }
    let run = try await sandbox.run(["GET", try await url("/get"), "board==balsa fish", "sum==1+1", "q==a&b=c"])
    #expect(run.status == 0, "\(run)")
    let args = try #require(try run.json()["args"] as? [String: any Sendable])
    #expect(args["board"] as? String == "balsa fish")
    #expect(args["sum"] as? String == "1+1")
    #expect(args["q"] as? String == "a&b=c")
  }

  @Test func dataItemsMakeAJSONBodyAndPOST() async throws {
    defer { sandbox.remove() }
    let run = try await sandbox.run([try await url("/post"), "title=Balsa", "count:=3", "tags:=[\"fast\",\"blue\"]"])
    #expect(run.status == 0, "\(run)")
    let echo = try run.json()
    let json = try #require(echo["json"] as? [String: any Sendable])
    #expect(json["title"] as? String == "Balsa")
    #expect((json["count"] as? NSNumber)?.intValue == 3)
    #expect(json["tags"] as? [String] == ["fast", "blue"])
    let headers = try #require(echo["headers"] as? [String: String])
    #expect(headers["Content-Type"] == "application/json")
    #expect(headers["Accept"] == "application/json, */*;q=0.5")
  }

  @Test func formFlagMakesAURLEncodedForm() async throws {
    defer { sandbox.remove() }
    let run = try await sandbox.run(["--form", try await url("/post"), "title=Balsa Fish", "type=1"])
    #expect(run.status == 0, "\(run)")
    let echo = try run.json()
    #expect(echo["form"] as? [String: String] == ["title": "Balsa Fish", "type": "1"])
    let headers = try #require(echo["headers"] as? [String: String])
    #expect(headers["Content-Type"]?.hasPrefix("application/x-www-form-urlencoded") == true)
  }

  @Test func fileItemsUploadAMultipartForm() async throws {
    defer { sandbox.remove() }
    let photo = sandbox.work.appendingPathComponent("board.txt")
    try Data("a board, in text\n".utf8).write(to: photo)
    let run = try await sandbox.run(["-f", "PUT", try await url("/put"), "title=T", "photo@board.txt;type=text/plain"])
    #expect(run.status == 0, "\(run)")
    let echo = try run.json()
    #expect(echo["files"] as? [String: String] == ["photo": "a board, in text\n"])
    #expect(echo["form"] as? [String: String] == ["title": "T"])
    let headers = try #require(echo["headers"] as? [String: String])
    #expect(headers["Content-Type"]?.hasPrefix("multipart/form-data; boundary=") == true)
  }

  @Test func anAtFileAndStandardInputAreTheBody() async throws {
    defer { sandbox.remove() }
    let file = sandbox.work.appendingPathComponent("body.json")
    try Data("{\"from\":\"file\"}".utf8).write(to: file)
    let fromFile = try await sandbox.run(["PUT", try await url("/put"), "@body.json"])
    #expect(fromFile.status == 0, "\(fromFile)")
    #expect(try fromFile.json()["json"] as? [String: String] == ["from": "file"])

    let fromInput = try await sandbox.run([try await url("/post")], input: Data("{\"from\":\"stdin\"}".utf8))
    #expect(fromInput.status == 0, "\(fromInput)")
    #expect(try fromInput.json()["json"] as? [String: String] == ["from": "stdin"])
    let ignored = try await sandbox.run(["--ignore-stdin", try await url("/get")], input: Data("x".utf8))
    #expect(ignored.status == 0, "\(ignored)")
  }

  @Test func headerItemsAreSent() async throws {
    defer { sandbox.remove() }
    let run = try await sandbox.run([try await url("/headers"), "X-Board:7", "User-Agent:surf-test", "X-Empty;"])
    #expect(run.status == 0, "\(run)")
    let headers = try #require(try run.json()["headers"] as? [String: String])
    #expect(headers["X-Board"] == "7")
    #expect(headers["User-Agent"] == "surf-test")
    #expect(headers["X-Empty"] == "")
  }

  @Test func printLettersChooseWhatIsShown() async throws {
    defer { sandbox.remove() }
    let verbose = try await sandbox.run(["-v", try await url("/post"), "a=1"])
    #expect(verbose.status == 0, "\(verbose)")
    #expect(verbose.text.hasPrefix("POST /post\n"), "\(verbose)")
    #expect(verbose.text.contains("\n{\"a\":\"1\"}\n"))
    #expect(verbose.text.contains("HTTP 200 OK\n"))
    #expect(!verbose.text.contains("\u{1B}["), "colours when piped")
    let head = try await sandbox.run(["--print", "h", try await url("/get")])
    #expect(head.text.hasPrefix("HTTP 200 OK\n"))
    #expect(!head.text.contains("\"args\""))
    let binary = try await sandbox.run([try await url("/bytes/64?seed=7")])
    #expect(binary.status == 0 && binary.stdout.count == 64, "piped: the bytes as they came: \(binary)")
    let coloured = try await sandbox.run(["--pretty", "all", try await url("/get")])
    #expect(coloured.text.contains("\u{1B}[34m\"args\"\u{1B}[0m"), "\(coloured)")
    #expect(coloured.text.contains("\n    \u{1B}"), "four-space indentation")
  }

  /// HTTPie 3.2.4: `--headers, -h  Print only the response headers. Shortcut for --print=h.`; help is `--help`.
  @Test func headersFlagPrintsTheResponseHeadAlone() async throws {
    defer { sandbox.remove() }
    for flag in ["-h", "--headers"] {
      let run = try await sandbox.run([flag, try await url("/get")])
      #expect(run.status == 0, "\(run)")
      #expect(run.text.hasPrefix("HTTP 200 OK\n"), "\(run)")
      #expect(run.text.contains("Content-Type: application/json\n"), "\(run)")
      #expect(!run.text.contains("\"args\""), "no body: \(run)")
      #expect(run.text.hasSuffix("\n\n"), "\(run)")
    }
    let help = try await sandbox.run(["--help"])
    #expect(help.status == 0, "\(help)")
    #expect(help.text.contains("USAGE:"), "\(help)")
    let sendHelp = try await sandbox.run(["send", "--help"])
    #expect(sendHelp.text.contains("-h, --headers"), "\(sendHelp)")
  }

  @Test func basicAndBearerAuth() async throws {
    defer { sandbox.remove() }
    let good = try await sandbox.run(["--check-status", "-a", "surfer:wave", try await url("/basic-auth/surfer/wave")])
    #expect(good.status == 0, "\(good)")
    #expect(try good.json()["authenticated"] as? Bool == true)
    let bad = try await sandbox.run(["--check-status", "-a", "surfer:nope", try await url("/basic-auth/surfer/wave")])
    #expect(bad.status == 4, "\(bad)")
    #expect(!bad.stderr.contains("nope"), "no secret in the message")
    let bearer = try await sandbox.run(["-A", "bearer", "-a", "t0ken", "--check-status", try await url("/bearer")])
    #expect(bearer.status == 0, "\(bearer)")
    #expect(try bearer.json()["token"] as? String == "t0ken")
    let noColon = try await sandbox.run(["-a", "surfer", try await url("/get")])
    #expect(noColon.status == 1)
    #expect(noColon.stderr == "surf: --auth: give user:password (surf does not prompt)\n")
  }

  @Test func redirectsAreFollowedOnlyWhenAsked() async throws {
    defer { sandbox.remove() }
    let kept = try await sandbox.run(["--print", "h", try await url("/redirect/2")])
    #expect(kept.status == 0, "\(kept)")
    #expect(kept.text.hasPrefix("HTTP 302 FOUND\n") || kept.text.hasPrefix("HTTP 302 Found\n"), "\(kept)")
    let followed = try await sandbox.run(["--follow", "--check-status", try await url("/redirect/2")])
    #expect(followed.status == 0, "\(followed)")
    #expect((try followed.json()["url"] as? String)?.hasSuffix("/get") == true)
    let tooMany = try await sandbox.run(["-F", "--max-redirects", "1", try await url("/redirect/3")])
    #expect(tooMany.status == 6, "\(tooMany)")
    #expect(tooMany.stderr.hasPrefix("surf: too many redirects"), "\(tooMany)")
  }

  /// `--public-only` refuses the loopback server before connecting, in one line; the next run is served.
  @Test func publicOnlyRefusesALoopbackServer() async throws {
    defer { sandbox.remove() }
    let refused = try await sandbox.run(["--public-only", try await url("/get")])
    #expect(refused.status == 1, "\(refused)")
    #expect(refused.stderr.hasPrefix("surf: address not allowed: the connection policy 'publicInternetOnly'"))
    #expect(refused.stderr.contains("(a loopback address)"), "\(refused)")
    #expect(refused.stderr.filter { $0 == "\n" }.count == 1, "one line")
    let good = try await sandbox.run([try await url("/get")])
    #expect(good.status == 0, "the next run is served: \(good)")
  }

  /// Status → exit status under --check-status (HTTPie's), and 0 without it.
  @Test(arguments: [(200, Int32(0)), (201, 0), (302, 3), (404, 4), (418, 4), (500, 5), (503, 5)])
  func checkStatusExitCodes(_ status: Int, _ expected: Int32) async throws {
    defer { sandbox.remove() }
    let checked = try await sandbox.run(["--check-status", try await url("/status/\(status)")])
    #expect(checked.status == expected, "\(checked)")
    if expected != 0 { #expect(checked.stderr.contains("surf: warning: HTTP \(status)")) }
    let unchecked = try await sandbox.run([try await url("/status/\(status)")])
    #expect(unchecked.status == 0, "\(unchecked)")
  }

  @Test func refusedAndTimedOutRequestsFailWithOneLine() async throws {
    defer { sandbox.remove() }
    let port = try refusedPort()
    let refused = try await sandbox.run(["http://127.0.0.1:\(port)/get"])
    #expect(refused.status == 1, "\(refused)")
    #expect(refused.stderr.hasPrefix("surf: connection refused"), "\(refused)")
    #expect(refused.stderr.filter { $0 == "\n" }.count == 1, "one line")
    let slow = try await sandbox.run(["--timeout", "0.5", try await url("/delay/5")])
    #expect(slow.status == 2, "\(slow)")
    #expect(slow.stderr.hasPrefix("surf: timed out"), "\(slow)")
    let good = try await sandbox.run([try await url("/get")])
    #expect(good.status == 0, "the next run is served: \(good)")
    let badItem = try await sandbox.run([try await url("/get"), "nonsense"])
    #expect(badItem.status == 1)
    #expect(badItem.stderr.contains("'nonsense' is not a request item"))
  }

  /// A command line that does not parse: 64 (swift-argument-parser's usage error); a missing URL or a bad item: 1.
  @Test func commandLineMistakes() async throws {
    defer { sandbox.remove() }
    let unknown = try await sandbox.run(["--nope", try await url("/get")])
    #expect(unknown.status == 64, "\(unknown)")
    #expect(unknown.stderr.contains("Unknown option '--nope'"))
    let notANumber = try await sandbox.run(["--timeout", "soon", try await url("/get")])
    #expect(notANumber.status == 64, "\(notANumber)")
    let noURL = try await sandbox.run([])
    #expect(noURL.status == 1)
    #expect(noURL.stderr == "surf: no URL given: surf [METHOD] URL [ITEM …]\n")
    let good = try await sandbox.run([try await url("/get")])
    #expect(good.status == 0, "\(good)")
  }

  @Test func downloadResumesAHalfWrittenFile() async throws {
    defer { sandbox.remove() }
    // httpbin's /range streams `abc…z` repeated, slowly (duration), with a strong ETag and Range support.
    let size = 102_400
    let source = try await url("/range/\(size)?duration=4&chunk_size=2048")
    let partial = sandbox.work.appendingPathComponent("range.bin.partial")
    let (process, _, _) = try sandbox.start(["-d", "-c", "-o", "range.bin", source])
    let deadline = ContinuousClock.now + .seconds(20)
    while (try? FileManager.default.attributesOfItem(atPath: partial.path)[.size] as? Int) ?? 0 < 8192 {
      try #require(ContinuousClock.now < deadline, "no partial file appeared")
      try await Task.sleep(for: .milliseconds(20))
    }
    kill(process.processIdentifier, SIGINT)
    try await SurfSandbox.wait(for: process)
    #expect(process.terminationStatus == 130)
    let kept = try #require(try FileManager.default.attributesOfItem(atPath: partial.path)[.size] as? Int)
    #expect(kept > 0 && kept < size, "a half-written file is left: \(kept) bytes")
    #expect(!FileManager.default.fileExists(atPath: sandbox.work.appendingPathComponent("range.bin").path))

    let resumed = try await sandbox.run(["-d", "-c", "-o", "range.bin", source])
    #expect(resumed.status == 0, "\(resumed)")
    #expect(resumed.stderr.contains("(resumed from "), "\(resumed)")
    #expect(!resumed.stderr.contains("\u{1B}["), "no progress bar when stderr is not a terminal")
    let data = try Data(contentsOf: sandbox.work.appendingPathComponent("range.bin"))
    let alphabet = Array("abcdefghijklmnopqrstuvwxyz".utf8)
    #expect(data == Data((0..<size).map { alphabet[$0 % 26] }))
    #expect(!FileManager.default.fileExists(atPath: partial.path))
  }

  /// HTTPie's `--continue` on a partial file another tool left (no `.partial` of surf's own): httpbin's `/range`
  /// answers `Range: bytes=<size>-` with a `206` that is appended; `/bytes` ignores ranges, so its `200` is the whole
  /// file, which replaces the partial one; run again on the finished file, the `416` says it is complete.
  @Test func continueResumesAPartialFileOfAnotherTool() async throws {
    defer { sandbox.remove() }
    let size = 10_000
    let alphabet = Array("abcdefghijklmnopqrstuvwxyz".utf8)
    let whole = Data((0..<size).map { alphabet[$0 % 26] })
    let file = sandbox.work.appendingPathComponent("range.bin")
    try whole.prefix(4000).write(to: file)
    let source = try await url("/range/\(size)")
    let resumed = try await sandbox.run(["-d", "-c", "-o", "range.bin", source])
    #expect(resumed.status == 0, "\(resumed)")
    #expect(resumed.stderr.contains("(resumed from 4.0 kB)"), "\(resumed)")
    #expect(try Data(contentsOf: file) == whole)

    let again = try await sandbox.run(["-d", "-c", "--check-status", "-o", "range.bin", source])
    #expect(again.status == 0, "\(again)")
    #expect(try Data(contentsOf: file) == whole)

    let bytes = try await url("/bytes/1024?seed=7")
    let expected = try await sandbox.run([bytes]).stdout
    #expect(expected.count == 1024)
    let other = sandbox.work.appendingPathComponent("bytes.bin")
    try Data(repeating: 0x2A, count: 100).write(to: other)
    let whole200 = try await sandbox.run(["-d", "-c", "-o", "bytes.bin", bytes])
    #expect(whole200.status == 0, "\(whole200)")
    #expect(try Data(contentsOf: other) == expected, "the server ignored the range: the whole file")
  }

  /// `--stream` on the fault server's LLM-style completion: every `data:` event printed as a block of its own, up to
  /// `[DONE]`; on `/events`, which drops mid-event, the two whole events and then the error (no reconnection).
  @Test func streamPrintsServerSentEventsAsTheyArrive() async throws {
    defer { sandbox.remove() }
    let completion = try await Servers.faults("/events/completion?interval=0.01").absoluteString
    let run = try await sandbox.run(["--stream", "POST", completion, "prompt=sharks"])
    #expect(run.status == 0, "\(run)")
    #expect(run.text.hasPrefix("data: {\"text\": \"You\"}\n\ndata: {\"text\": \" asked:\"}\n\n"), "\(run)")
    #expect(run.text.hasSuffix("data: {\"text\": \" shark.\"}\n\ndata: [DONE]\n\n"), "\(run)")

    let dropped = try await sandbox.run(["-S", try await Servers.faults("/events").absoluteString])
    #expect(dropped.status == 1, "\(dropped)")
    #expect(dropped.text == "id: 1\nretry: 300\ndata: one\n\nid: 2\ndata: two\n\n", "\(dropped)")
  }

  /// `--max-download-size`: a body that never ends (the fault server's `/download/endless`) stops at the limit with
  /// one line and exit status 1, leaving no file; a body within the limit is written; a size that is not one is a
  /// usage error.
  @Test func aDownloadStopsAtTheMaximumSize() async throws {
    defer { sandbox.remove() }
    let endless = try await Servers.faults("/download/endless").absoluteString
    let stopped = try await sandbox.run(["-d", "--max-download-size", "256K", "-o", "endless.bin", endless])
    #expect(stopped.status == 1, "\(stopped)")
    #expect(stopped.stderr.contains("download failed (bodyTooLarge)"), "\(stopped)")
    #expect(stopped.stderr.contains("262144"), "\(stopped)")
    #expect(!FileManager.default.fileExists(atPath: sandbox.work.appendingPathComponent("endless.bin").path))

    let fits = try await sandbox.run([
      "-d", "--max-download-size", "1K", "-o", "fits.bin", try await url("/bytes/1024"),
    ])
    #expect(fits.status == 0, "\(fits)")
    let size = try FileManager.default.attributesOfItem(atPath: sandbox.work.appendingPathComponent("fits.bin").path)
    #expect(size[.size] as? Int == 1024)

    let bad = try await sandbox.run(["-d", "--max-download-size", "lots", try await url("/bytes/1024")])
    #expect(bad.status == 1, "\(bad)")
    #expect(bad.stderr.contains("--max-download-size: 'lots' is not a size"), "\(bad)")
  }

  @Test func downloadNamesTheFileFromTheURL() async throws {
    defer { sandbox.remove() }
    let first = try await sandbox.run(["--download", try await url("/bytes/1024")])
    #expect(first.status == 0, "\(first)")
    let second = try await sandbox.run(["--download", try await url("/bytes/1024")])
    #expect(second.status == 0, "\(second)")
    for name in ["1024", "1024-1"] {
      let size = try FileManager.default.attributesOfItem(atPath: sandbox.work.appendingPathComponent(name).path)[.size]
      #expect(size as? Int == 1024)
    }
    let missing = try await sandbox.run(["-d", "--check-status", try await url("/status/404")])
    #expect(missing.status == 4, "\(missing)")
  }

  @Test func aSessionKeepsCookiesAndAuthBetweenRuns() async throws {
    defer { sandbox.remove() }
    let set = try await sandbox.run(["--session", "beach", try await url("/cookies/set?flavour=mango")])
    #expect(set.status == 0, "\(set)")
    let again = try await sandbox.run(["--session", "beach", try await url("/cookies")])
    #expect(try again.json()["cookies"] as? [String: String] == ["flavour": "mango"])
    let without = try await sandbox.run([try await url("/cookies")])
    #expect(try without.json()["cookies"] as? [String: String] == [:])

    let port = try #require(URL(string: try await url("/"))?.port)
    let file = sandbox.config.appendingPathComponent("surf/sessions/127.0.0.1_\(port)/beach.json")
    let mode = try #require(try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int)
    #expect(mode == 0o600)

    _ = try await sandbox.run(["--session", "beach", "-a", "surfer:wave", try await url("/basic-auth/surfer/wave")])
    let remembered = try await sandbox.run([
      "--session", "beach", "--check-status", try await url("/basic-auth/surfer/wave"),
    ])
    #expect(remembered.status == 0, "credentials kept in the session: \(remembered)")
  }

  @Test func offlineRequestsAreStoredAndReplayed() async throws {
    defer { sandbox.remove() }
    let port = try refusedPort()
    let stored = try await sandbox.run(["--store-if-unreachable", "PUT", "http://127.0.0.1:\(port)/put", "board=balsa"])
    #expect(stored.status == 7, "\(stored)")
    #expect(stored.stderr.contains("the request is stored"), "\(stored)")
    let stillDown = try await sandbox.run(["replay"])
    #expect(stillDown.status == 1, "\(stillDown)")
    #expect(stillDown.stderr.contains("1 still stored"), "\(stillDown)")

    let spare = try await SpareHttpbin.start(port: port)
    defer { spare.stop() }
    let replayed = try await sandbox.run(["replay"])
    #expect(replayed.status == 0, "\(replayed)")
    #expect(replayed.text == "200 OK  PUT http://127.0.0.1:\(port)/put\n", "\(replayed)")
    #expect(replayed.stderr.contains("1 replayed, 0 still stored"))
  }

  /// HTTPie's `--offline`: the request is built and printed (`--print HB`), never sent: against a port that refuses
  /// connections it succeeds, and nothing is stored.
  @Test func offlineIsADryRun() async throws {
    defer { sandbox.remove() }
    let port = try refusedPort()
    let dry = try await sandbox.run([
      "--offline", "DELETE", "http://127.0.0.1:\(port)/boards/1", "X-Board:2", "board=balsa",
    ])
    #expect(dry.status == 0, "\(dry)")
    #expect(dry.text.hasPrefix("DELETE /boards/1\nHost: 127.0.0.1:\(port)\n"), "\(dry)")
    #expect(dry.text.contains("X-Board: 2\n"), "\(dry)")
    #expect(dry.text.hasSuffix("\n\n{\"board\":\"balsa\"}\n"), "\(dry)")
    #expect(dry.stderr.isEmpty, "\(dry)")
    let nothingStored = try await sandbox.run(["replay"])
    #expect(nothingStored.stderr.contains("0 replayed, 0 still stored"), "\(nothingStored)")
  }

  /// HTTPie's docs, "Nested JSON": `http --offline --print=B pie.dev/post category=tools search[type]=id
  /// search[id]:=1` prints `{"category": "tools", "search": {"id": 1, "type": "id"}}`; surf's keys are sorted, and
  /// compact when piped. A type clash is HTTPie's error, exit status 1, nothing sent.
  @Test func nestedJSONItems() async throws {
    defer { sandbox.remove() }
    let run = try await sandbox.run([
      "--offline", "--print=B", "pie.dev/post", "category=tools", "search[type]=id", "search[id]:=1",
    ])
    #expect(run.status == 0, "\(run)")
    #expect(run.text == "{\"category\":\"tools\",\"search\":{\"id\":1,\"type\":\"id\"}}\n", "\(run)")
    let sent = try await sandbox.run([try await url("/post"), "a[b][c]:=true", "a[d][]=x"])
    #expect(
      try sent.json()["json"] as? NSDictionary == ["a": ["b": ["c": true], "d": ["x"]]] as NSDictionary,
      "\(sent)"
    )
    let clash = try await sandbox.run([try await url("/post"), "a=1", "a[b]=2"])
    #expect(clash.status == 1, "\(clash)")
    #expect(
      clash.stderr == "surf: Type Error: Cannot perform 'key' based access on 'a' which has a type of 'string' but "
        + "this operation requires a type of 'object'.\na[b]\n ^^^\n",
      "\(clash)"
    )
  }

  @Test func urlSessionTransportToo() async throws {
    defer { sandbox.remove() }
    let run = try await sandbox.run(["--transport", "urlsession", try await url("/post"), "a=1", "n==2"])
    #expect(run.status == 0, "\(run)")
    let echo = try run.json()
    #expect(echo["json"] as? [String: String] == ["a": "1"])
    #expect(echo["args"] as? [String: String] == ["n": "2"])
    let unknown = try await sandbox.run(["--transport", "carrier-pigeon", try await url("/get")])
    #expect(unknown.status == 1)
    #expect(unknown.stderr == "surf: --transport: 'carrier-pigeon' is not curl or urlsession\n")
  }

  @Test func tlsOptionsReachTheTransport() async throws {
    defer { sandbox.remove() }
    let base = try await LocalServers.shared.nginxTLS().absoluteString
    let material = try await LocalServers.shared.tlsMaterial()
    let target = base + "/" + StaticContent.small.name
    let untrusted = try await sandbox.run(["--print", "h", target])
    #expect(untrusted.status == 1, "\(untrusted)")
    #expect(untrusted.stderr.hasPrefix("surf: TLS failed"), "\(untrusted)")
    let trusted = try await sandbox.run(["--print", "h", "--cacert", material.caFile, target])
    #expect(trusted.status == 0, "\(trusted)")
    let pinned = try await sandbox.run(["--print", "h", "--cacert", material.caFile, "--pin", material.pin, target])
    #expect(pinned.status == 0, "\(pinned)")
    let wrongPin = "sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="
    let mispinned = try await sandbox.run(["--print", "h", "--cacert", material.caFile, "--pin", wrongPin, target])
    #expect(mispinned.status == 1, "\(mispinned)")
    let insecure = try await sandbox.run(["--print", "h", "--verify", "no", target])
    #expect(insecure.status == 0, "\(insecure)")
  }

  @Test func aTerminalSeesTheProgressBarDrawnAndCleared() async throws {
    defer { sandbox.remove() }
    let source = try await url("/range/102400?duration=1&chunk_size=2048")
    let run = try await sandbox.runUnderTerminal(["--download", "--output", "bar.bin", source])
    #expect(run.status == 0, "\(run)")
    let screen = run.text
    let clear = "\r\u{1B}[2K"
    // Redrawn in place: a line with the percentage, the bar, the sizes, the rate and the time left.
    let drawings = screen.components(separatedBy: clear).filter { $0.contains("% [") }
    #expect(drawings.count >= 2, "\(screen.debugDescription)")
    #expect(drawings.contains { $0.contains("/ 102.4 kB") && $0.contains("B/s") && $0.contains("ETA ") })
    #expect(drawings.last?.hasPrefix("100% [") == true, "\(drawings.last ?? "")")
    // Cleared before the summary: the last drawing is followed by a clear, then the response head.
    let lastBar = try #require(screen.range(of: "100% [", options: .backwards))
    let rest = screen[lastBar.upperBound...]
    let cleared = try #require(rest.range(of: clear))
    #expect(rest[cleared.upperBound...].contains("Done. 102.4 kB"), "\(rest.debugDescription)")
    #expect(!rest[cleared.upperBound...].contains("% ["))
    #expect(try Data(contentsOf: sandbox.work.appendingPathComponent("bar.bin")).count == 102_400)
  }

  @Test func retryResendsAFailingIdempotentRequest() async throws {
    defer { sandbox.remove() }
    // The scripted server's /flaky answers its first `fail` requests with 503, then 200.
    let once = try TestServer()
    defer { once.stop() }
    let unretried = try await sandbox.run(["--check-status", once.url("/flaky?fail=2").absoluteString])
    #expect(unretried.status == 5, "\(unretried)")
    #expect(once.requests.count == 1)

    let server = try TestServer()
    defer { server.stop() }
    let retried = try await sandbox.run(["--retry", "2", "--check-status", server.url("/flaky?fail=2").absoluteString])
    #expect(retried.status == 0, "\(retried)")
    #expect(server.requests.count == 3, "two retries, then the answer")
    #expect(retried.text == "ok" || retried.text == "ok\n", "\(retried)")
  }

  @Test func aTerminalSeesTheUploadBarToo() async throws {
    defer { sandbox.remove() }
    let server = try TestServer()
    defer { server.stop() }
    let file = sandbox.work.appendingPathComponent("board.bin")
    try Data(repeating: 0x42, count: 8 << 20).write(to: file)
    let run = try await sandbox.runUnderTerminal([
      "--print", "b", "PUT", server.url("/sink").absoluteString, "@board.bin",
    ])
    #expect(run.status == 0, "\(run)")
    let clear = "\r\u{1B}[2K"
    let drawings = run.text.components(separatedBy: clear).filter { $0.contains("% [") }
    #expect(!drawings.isEmpty, "\(run.text.debugDescription)")
    #expect(drawings.allSatisfy { $0.contains("/ 8.4 MB") })
    // Cleared before the response body is printed.
    let body = try #require(run.text.range(of: "8388608"))
    let lastClear = try #require(run.text.range(of: clear, options: .backwards))
    #expect(lastClear.upperBound <= body.lowerBound, "\(run.text.debugDescription)")
  }
}
