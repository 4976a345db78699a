import Foundation
import HTTPTypes
@_spi(Malibu) import MalibuCore
import MalibuTestSupport
import MalibuTransport
import Testing

@testable import MalibuURLSession

extension URLSessionTransportTests {
  @Suite struct Decoding {
    /// URLSession decodes these itself; the body arrives decoded once and the headers describe it.
    @Test(arguments: ["/gzip?size=50000", "/gzip-chunked?size=50000", "/deflate?size=50000"])
    func encodedBodyIsDecodedOnceWithHonestHeaders(path: String) async throws {
      let fixture = try Fixture()
      let response = try await fixture.fetch(fixture.request(.get, path))
      #expect(response.body == pattern(50_000))
      #expect(response.head.headerFields[.contentEncoding] == nil)
      #expect(response.head.headerFields[.contentLength] == nil)
      #expect(fixture.last?.value("Accept-Encoding")?.contains("gzip") == true)
    }

    @Test func plainBodyKeepsItsLength() async throws {
      let fixture = try Fixture()
      let response = try await fixture.transport.send(
        fixture.request(.get, "/bytes?size=1234"),
        body: nil,
        options: TransferOptions()
      )
      #expect(response.head.headerFields[.contentLength] == "1234")
      #expect(response.body.expectedLength == 1234)
      #expect(try await response.body.collect(upTo: 10_000) == pattern(1234))
    }

    @Test func decompressionLimitIsEnforcedOnDecodedBytes() async throws {
      let fixture = try Fixture()
      var options = TransferOptions()
      options.decompression = .enabled(limit: 1 << 20)
      let error = await transportError {
        _ = try await fixture.fetch(fixture.request(.get, "/gzip-zeros?size=20000000"), options: options)
      }
      #expect(error?.code == .bodyTooLarge)
      // Within the limit it passes, and the transport keeps serving.
      let small = try await fixture.fetch(fixture.request(.get, "/gzip-zeros?size=1048576"), options: options)
      #expect(small.body.count == 1 << 20)
    }

    @Test func collectLimitStopsThePlainBody() async throws {
      let fixture = try Fixture()
      let error = await transportError {
        _ = try await fixture.fetch(fixture.request(.get, "/bytes?size=100000"), limit: 1000)
      }
      #expect(error?.code == .bodyTooLarge)
      #expect(try await fixture.fetch(fixture.request(.get, "/bytes?size=10")).body == pattern(10))
    }

    @Test func bodyThatIsNotGzipFailsToDecode() async throws {
      let fixture = try Fixture()
      let error = await transportError { _ = try await fixture.fetch(fixture.request(.get, "/not-gzip")) }
      #expect(error?.code == .decodingFailed)
    }

    /// libcurl (7.88, under FoundationNetworking) does not check that a gzip stream reached its end when the
    /// connection delivered every announced byte: a truncated stream arrives as a shorter body, without an error.
    /// The transport cannot tell, since it only ever sees decoded bytes; the catalog documents this.
    @Test func truncatedGzipIsShortOrAnError() async throws {
      let fixture = try Fixture()
      do {
        let response = try await fixture.fetch(fixture.request(.get, "/gzip-truncated?size=100000"))
        #expect(response.body.count < 100_000)
        #expect(pattern(100_000).starts(with: response.body))
      } catch let error as TransportError {
        #expect(error.code == .decodingFailed || error.code == .connectionReset)
      }
    }

    @Test func unknownCodingIsPassedThroughUntouched() async throws {
      let fixture = try Fixture()
      do {
        let response = try await fixture.fetch(fixture.request(.get, "/coding?name=compress"))
        #expect(response.body == Data("plain".utf8))
        #expect(response.head.headerFields[.contentEncoding] == "compress")
      } catch let error as TransportError {
        // libcurl may refuse a coding it does not know.
        #expect(error.code == .decodingFailed)
      }
    }

    @Test func disablingDecompressionIsUnsupported() async throws {
      let fixture = try Fixture()
      var options = TransferOptions()
      options.decompression = .disabled
      let error = await transportError { _ = try await fixture.fetch(fixture.request(.get, "/gzip"), options: options) }
      #expect(error?.code == .unsupportedOption)
      #expect(fixture.server.acceptedConnections == 0)
    }

    @Test func downloadProgressIsMonotonic() async throws {
      let fixture = try Fixture()
      let seen = Locked<[TransferProgress]>([])
      var options = TransferOptions()
      options.progress = { progress in seen.withLock { $0.append(progress) } }
      let response = try await fixture.fetch(fixture.request(.get, "/chunked?size=300000&chunk=4096"), options: options)
      #expect(response.body.count == 300_000)
      let values = seen.withLock { $0 }
      #expect(zip(values, values.dropFirst()).allSatisfy { $0.downloaded <= $1.downloaded })
      #expect(values.last?.downloaded == 300_000)
    }

    @Test func responsesKeepTheirStatusAndRepeatedFields() async throws {
      let fixture = try Fixture()
      for status in [200, 201, 204, 404, 418, 500, 503, 599] {
        let response = try await fixture.fetch(fixture.request(.get, "/status/\(status)"))
        #expect(response.head.status.code == status)
        #expect(response.body == (status == 204 ? Data() : Data("status \(status)".utf8)))
      }
      let cookies = try await fixture.fetch(fixture.request(.get, "/set-cookie"))
      // URLSession folds repeated fields into one value (documented).
      let setCookie = cookies.head.headerFields[values: .setCookie].joined(separator: ", ")
      #expect(setCookie.contains("a=1"))
      #expect(setCookie.contains("b=2"))
      #expect(cookies.head.headerFields[HTTPField.Name("X-Multi")!] == "one")
    }
  }
}
