// The vocabulary of the `Transport` API, re-exported so that `import MalibuTransport`, or a transport module that
// re-exports it (MalibuCurl, MalibuURLSession, MalibuMocking), is all a transport call needs: `HTTPRequest`,
// `HTTPResponse` and `HTTPFields`. Foundation (`URL`, `Data`) is re-exported by the transport modules, not here: the
// layers above MalibuTransport keep choosing their own imports. A `BodySource` of one's own needs `import MalibuCore`.
// `TransferMetrics` comes along, as the type of a response's `metrics`.
@_exported import HTTPTypes
@_exported public import struct MalibuCore.TransferMetrics
