import Foundation
import Malibu
import Testing

/// The facade's ETag policy against httpbin's `/etag/{etag}` (a `304` for a matching `If-None-Match`), without an
/// HTTP cache: the second fetch is a 304 on the wire and the stored 200 for the caller.
@Suite("Facade: ETag policy")
struct FacadeETagTests {
  @Test(arguments: Backend.allCases)
  func theSecondGetIsA304OnTheWireAndTheStoredBodyForTheCaller(_ backend: Backend) async throws {
    try await FacadeServer.start()
    let recorder = RecordingTransport(backend.transport)
    let networking = Networking<HttpbinProbe>(transport: .custom(recorder))
    networking.etagPolicy = .enabled
    let first = try await networking.request(HttpbinProbe(.get("etag/swell-7"))).validate().value
    #expect(first.statusCode == 200 && !first.isFromCache)
    #expect(first.headers[.eTag] == "swell-7")

    let second = try await networking.request(HttpbinProbe(.get("etag/swell-7"))).validate().value
    #expect(recorder.statuses == [200, 304])
    #expect(recorder.all.last?.request.headerFields[.ifNoneMatch] == "swell-7")
    #expect(second.statusCode == 200 && second.isFromCache)
    #expect(second.data == first.data)
    #expect(try second.toJsonDictionary()["url"] is String)

    // A caller asking for the 304 itself gets it; a request with the policy off gets a full 200.
    let own = try await networking.request(HttpbinProbe(.get("etag/swell-7", headers: ["If-None-Match": "swell-7"])))
      .value
    #expect(own.statusCode == 304 && !own.isFromCache)
    var plain = Request.get("etag/swell-7")
    plain.etagPolicy = .disabled
    let full = try await networking.request(HttpbinProbe(plain)).validate().value
    #expect(recorder.statuses == [200, 304, 304, 200])
    #expect(recorder.all.last?.request.headerFields[.ifNoneMatch] == nil)
    #expect(full.statusCode == 200 && !full.isFromCache)
  }
}
