// Imports MalibuCurl and nothing else: the guide promises that this one import is enough for a transport call
// (MalibuCurl re-exports Foundation and MalibuTransport, which re-exports HTTPTypes). Add no import here.
import MalibuCurl

/// The guide's transport example (SingleModules.md, the `import MalibuCurl` block), line for line, with the URL given
/// as `address`. `CurlTests.ReadmeTransportExample` checks that the guide still shows these lines and
/// runs them against the test server.
func readmeTransportExample(address: String) async throws -> (HTTPResponse, Data, URL?) {
  let transport = CurlTransport()
  var head = HTTPRequest(method: .get, url: URL(string: address)!)
  head.headerFields[.accept] = "application/json"
  let (answer, data, finalURL) = try await transport.data(for: head)  // no body, TransferOptions(), 256 MiB at most
  return (answer, data, finalURL)
}
