import Foundation
import Malibu
import Testing

/// Validation failures through the facade: the `NetworkError` carries the response, whose body is readable.
@Suite("Facade: validation")
struct FacadeValidationTests {
  @Test(arguments: Backend.allCases)
  func unacceptableStatusKeepsTheResponseAndItsBody(_ backend: Backend) async throws {
    try await FacadeServer.start()
    let networking = Networking<Httpbin>(transport: backend.kind)
    let error = try #require(await rejection(networking.request(.status(418)).validate()))
    #expect(error.code == .unacceptableStatusCode)
    let response = try #require(error.response)
    #expect(response.statusCode == 418)
    #expect(try response.toString().contains("teapot"))
    #expect(error.message.contains("418"))
  }

  @Test(arguments: Backend.allCases, [400, 404, 500, 503])
  func statusCodesOutsideTheAcceptedRangeFail(_ backend: Backend, status: Int) async throws {
    try await FacadeServer.start()
    let networking = Networking<Httpbin>(transport: backend.kind)
    let error = try #require(await rejection(networking.request(.status(status)).validate()))
    #expect(error.code == .unacceptableStatusCode)
    #expect(error.response?.statusCode == status)
    // The same response passes when its status is accepted explicitly.
    let accepted = try await networking.request(.status(status)).validate(statusCodes: [status]).value
    #expect(accepted.statusCode == status)
  }

  @Test(arguments: Backend.allCases)
  func contentTypeMismatchKeepsTheResponseAndItsBody(_ backend: Backend) async throws {
    try await FacadeServer.start()
    let networking = Networking<Httpbin>(transport: backend.kind)
    let error = try #require(
      await rejection(networking.request(.path("html")).validate(contentTypes: ["application/json"]))
    )
    #expect(error.code == .unacceptableContentType)
    let response = try #require(error.response)
    #expect(response.statusCode == 200)
    #expect(try response.toString().contains("Herman Melville"))

    let jsonError = try #require(
      await rejection(networking.request(.path("json")).validate(contentTypes: ["text/html"]))
    )
    #expect(jsonError.code == .unacceptableContentType)
    let body = try #require(jsonError.response).toJsonDictionary()
    #expect(body["slideshow"] != nil)
  }

  @Test(arguments: Backend.allCases)
  func aValidResponsePasses(_ backend: Backend) async throws {
    try await FacadeServer.start()
    let networking = Networking<Httpbin>(transport: backend.kind)
    let response = try await networking.request(.path("json")).validate()
      .validate(statusCodes: 200..<300).validate(contentTypes: ["application/json"]).value
    #expect(response.statusCode == 200)
  }
}
