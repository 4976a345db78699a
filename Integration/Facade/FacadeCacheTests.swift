import Foundation
import Malibu
import Testing

/// The facade's HTTP cache against httpbin's `/etag/{etag}` and `/cache`: the second fetch is a 304 on the wire and
/// a 200 with the full body for the caller.
@Suite("Facade: HTTP cache")
struct FacadeCacheTests {
  @Test(arguments: Backend.allCases)
  func etagRevalidationIsA304OnTheWireAndAFullBodyForTheCaller(_ backend: Backend) async throws {
    try await FacadeServer.start()
    let recorder = RecordingTransport(backend.transport)
    let networking = Networking<Httpbin>(transport: .custom(recorder))
    let first = try await networking.request(.etag("wave-42", .useProtocolCachePolicy)).validate().value
    #expect(first.statusCode == 200)
    #expect(!first.isFromCache)
    #expect(first.headers[.eTag] == "wave-42")

    let second = try await networking.request(.etag("wave-42", .useProtocolCachePolicy)).validate().value
    #expect(recorder.statuses == [200, 304])
    #expect(recorder.all.last?.request.headerFields[.ifNoneMatch] == "wave-42")
    #expect(second.statusCode == 200)
    #expect(second.isFromCache)
    #expect(second.data == first.data)
    #expect(try second.toJsonDictionary()["url"] as? String == (try first.toJsonDictionary()["url"] as? String))

    // reloadIgnoringLocalCacheData bypasses the cache: no validator sent, a full 200 from the server.
    let reloaded = try await networking.request(.etag("wave-42", .reloadIgnoringLocalCacheData)).validate().value
    #expect(recorder.statuses == [200, 304, 200])
    #expect(recorder.all.last?.request.headerFields[.ifNoneMatch] == nil)
    #expect(reloaded.statusCode == 200)
    #expect(!reloaded.isFromCache)
    #expect(reloaded.data == first.data)
  }

  @Test(arguments: Backend.allCases)
  func lastModifiedRevalidationOfCache(_ backend: Backend) async throws {
    try await FacadeServer.start()
    let recorder = RecordingTransport(backend.transport)
    let networking = Networking<Httpbin>(transport: .custom(recorder))
    let first = try await networking.request(.cache(.useProtocolCachePolicy)).validate().value
    #expect(first.statusCode == 200)
    #expect(!first.isFromCache)
    #expect(first.headers[.lastModified] != nil)

    let second = try await networking.request(.cache(.useProtocolCachePolicy)).validate().value
    #expect(recorder.statuses == [200, 304])
    let revalidation = try #require(recorder.all.last?.request.headerFields)
    #expect(revalidation[.ifModifiedSince] != nil || revalidation[.ifNoneMatch] != nil)
    #expect(second.statusCode == 200)
    #expect(second.isFromCache)
    #expect(second.data == first.data)
    #expect(try second.toJsonDictionary()["url"] is String)

    let reloaded = try await networking.request(.cache(.reloadIgnoringLocalCacheData)).validate().value
    #expect(recorder.statuses == [200, 304, 200])
    #expect(recorder.all.last?.request.headerFields[.ifModifiedSince] == nil)
    #expect(!reloaded.isFromCache)
    #expect(reloaded.statusCode == 200)
  }
}
