import Foundation
import HTTPTypes
import MalibuGzip
import MalibuTestSupport
import MalibuTransport
import Testing

@testable import MalibuCurl

extension CurlTests {
  @Suite struct Requests {
    @Test(arguments: ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"])
    func sendsExactlyTheMethodHeadersAndBody(method: String) async throws {
      try await withServer { server, transport in
        let method = HTTPRequest.Method(method)!
        var fields: HTTPFields = [.userAgent: "malibu-test", HTTPField.Name("X-Custom")!: "a value"]
        fields.append(HTTPField(name: .cookie, value: "a=1"))
        fields.append(HTTPField(name: .cookie, value: "b=2"))
        let hasBody = method != .head && method != .get && method != .options
        let payload = Data("payload for \(method.rawValue)".utf8)
        let (head, _, _) = try await transport.data(
          for: request(method, server.url("/echo?q=1"), headers: fields),
          body: hasBody ? .data(payload) : nil,
          options: .init(),
          upTo: 1 << 20
        )
        #expect(head.status.code == 200)
        let received = try #require(server.lastRequest)
        #expect(received.method == method.rawValue)
        #expect(received.target == "/echo?q=1")
        #expect(received.value("Accept") == nil)
        #expect(received.value("Expect") == nil)
        #expect(received.value("Content-Type") == nil)
        #expect(received.value("User-Agent") == "malibu-test")
        #expect(received.value("X-Custom") == "a value")
        #expect(received.values("Cookie") == ["a=1", "b=2"])
        #expect(received.body == (hasBody ? payload : Data()))
        if hasBody { #expect(received.value("Content-Length") == String(payload.count)) }
        let names = Set(received.headers.map { $0.name.lowercased() })
        let expected: Set<String> = ["host", "user-agent", "x-custom", "cookie"]
        #expect(names.subtracting(["content-length"]) == expected)
      }
    }

    @Test func keepsTheCallersAcceptExpectEmptyValuesAndContentType() async throws {
      try await withServer { server, transport in
        let fields: HTTPFields = [
          .accept: "application/json", .contentType: "text/plain", HTTPField.Name("X-Empty")!: "",
        ]
        _ = try await transport.data(
          for: request(.post, server.url("/echo"), headers: fields),
          body: .data(Data("x".utf8)),
          options: .init(),
          upTo: 1 << 20
        )
        let received = try #require(server.lastRequest)
        #expect(received.value("Accept") == "application/json")
        #expect(received.value("Content-Type") == "text/plain")
        #expect(received.value("X-Empty") == "")
      }
    }

    @Test func postWithoutBodySendsAnEmptyBody() async throws {
      try await withServer { server, transport in
        _ = try await transport.data(for: request(.post, server.url("/echo")), body: nil, options: .init(), upTo: 100)
        let received = try #require(server.lastRequest)
        #expect(received.value("Content-Length") == "0")
        #expect(received.body.isEmpty)
      }
    }

    @Test(arguments: [0, 10, 70_000, 3 << 20])
    func dataBodiesArriveByteExact(size: Int) async throws {
      try await withServer { server, transport in
        let payload = pattern(size)
        let (_, echoed, _) = try await transport.data(
          for: request(.put, server.url("/echo")),
          body: .data(payload),
          options: .init(),
          upTo: 8 << 20
        )
        #expect(echoed == payload)
        #expect(server.lastRequest?.body == payload)
        #expect(server.lastRequest?.wasChunked == false)
      }
    }

    @Test func fileBodiesArriveByteExact() async throws {
      try await withServer { server, transport in
        let payload = pattern(6 << 20)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("malibu-curl-\(UUID()).bin")
        try payload.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let progress = Box<[TransferProgress]>([])
        var options = TransferOptions()
        options.progress = { value in progress.update { $0.append(value) } }
        let (_, echoed, _) = try await transport.data(
          for: request(.post, server.url("/echo")),
          body: try .file(file),
          options: options,
          upTo: 8 << 20
        )
        #expect(echoed == payload)
        let received = try #require(server.lastRequest)
        #expect(received.value("Content-Length") == String(payload.count))
        #expect(received.body == payload)
        let values = progress.value
        #expect(values.last?.uploaded == Int64(payload.count))
        #expect(values.last?.uploadTotal == Int64(payload.count))
        #expect(values.last?.downloaded == Int64(payload.count))
        for (previous, next) in zip(values, values.dropFirst()) {
          #expect(next.uploaded >= previous.uploaded && next.downloaded >= previous.downloaded)
        }
      }
    }

    @Test(arguments: [false, true])
    func streamBodiesArriveByteExact(knownLength: Bool) async throws {
      try await withServer { server, transport in
        let pieces = (0..<40).map { pattern(50_000 + $0) }
        let payload = pieces.reduce(Data(), +)
        let chunks = AsyncStream<Data> { continuation in
          Task {
            for piece in pieces {
              continuation.yield(piece)
              try? await Task.sleep(for: .milliseconds(1))
            }
            continuation.finish()
          }
        }
        let body = RequestBody.stream(chunks, length: knownLength ? UInt64(payload.count) : nil)
        let (_, echoed, _) = try await transport.data(
          for: request(.post, server.url("/echo")),
          body: body,
          options: .init(),
          upTo: 8 << 20
        )
        #expect(echoed == payload)
        let received = try #require(server.lastRequest)
        #expect(received.wasChunked == !knownLength)
        #expect(received.body == payload)
      }
    }

    @Test(arguments: ["data", "stream", "file"])
    func gzipCompressedBodiesArriveByteExact(kind: String) async throws {
      try await withServer { server, transport in
        let payload = pattern(2 << 20)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("malibu-curl-\(UUID()).bin")
        defer { try? FileManager.default.removeItem(at: file) }
        let body: RequestBody
        switch kind {
        case "data":
          body = .data(payload)
        case "file":
          try payload.write(to: file)
          body = try .file(file)
        default:
          body = .stream(
            AsyncStream {
              $0.yield(payload.prefix(1 << 20))
              $0.yield(payload.dropFirst(1 << 20))
              $0.finish()
            },
            length: nil
          )
        }
        var options = TransferOptions()
        options.requestCompression = .gzip
        _ = try await transport.data(
          for: request(.post, server.url("/echo")),
          body: body,
          options: options,
          upTo: 8 << 20
        )
        let received = try #require(server.lastRequest)
        #expect(received.value("Content-Encoding") == "gzip")
        #expect(received.wasChunked)
        #expect(received.body.count < payload.count)
        #expect(try Gzip.inflate(received.body) == payload)
      }
    }

    @Test func aStreamedBodyThatFailsEndsTheRequest() async throws {
      try await withServer { server, transport in
        struct Broken: Error {}
        let chunks = AsyncThrowingStream<Data, any Error> { continuation in
          continuation.yield(Data("first".utf8))
          continuation.finish(throwing: Broken())
        }
        let code = await errorCode {
          _ = try await transport.data(
            for: request(.post, server.url("/echo")),
            body: .stream(chunks, length: nil),
            options: .init(),
            upTo: 100
          )
        }
        #expect(code == .invalidRequest)
        try await expectServes(transport, server)
      }
    }

    /// Framing is the transport's alone on every method: a caller's `Content-Length` or `Transfer-Encoding` on a
    /// request without a body would make the server read the next request on the pooled connection as body bytes.
    @Test(arguments: ["GET", "HEAD", "DELETE"], [("Content-Length", "24"), ("Transfer-Encoding", "chunked")])
    func callersFramingFieldsNeverReachTheWire(method: String, framing: (String, String)) async throws {
      try await withServer { server, transport in
        let method = HTTPRequest.Method(method)!
        var fields: HTTPFields = [HTTPField.Name(framing.0)!: framing.1, .connection: "close"]
        fields[.userAgent] = "malibu-test"
        let options = TransferOptions(timeouts: MalibuTransport.Timeouts(total: .seconds(5)))
        let (head, _, _) = try await transport.data(
          for: request(method, server.url("/echo"), headers: fields),
          body: nil,
          options: options,
          upTo: 1 << 20
        )
        #expect(head.status.code == 200)
        let first = try #require(server.lastRequest)
        #expect(first.method == method.rawValue)
        #expect(first.value("Content-Length") == nil)
        #expect(first.value("Transfer-Encoding") == nil)
        #expect(first.value("Connection") == nil)
        #expect(first.bodyLength == 0)

        // The next request on the same pooled connection is read as a request of its own.
        let (next, body, _) = try await transport.data(
          for: request(server.url("/bytes?size=100"), headers: [.authorization: "Bearer next-request"]),
          body: nil,
          options: options,
          upTo: 1 << 20
        )
        #expect(next.status.code == 200)
        #expect(body == pattern(100))
        #expect(server.requests.count == 2)
        #expect(server.lastRequest?.value("Authorization") == "Bearer next-request")
        #expect(server.acceptedConnections == 1)
      }
    }
  }
}
