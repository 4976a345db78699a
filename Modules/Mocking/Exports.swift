// What a transport call needs besides this module, so that `import MalibuMocking` alone is enough to stub and call a
// `MockTransport`: MalibuTransport (`Transport`, `TransferOptions`, `RequestBody`, `TransportError`, and HTTPTypes,
// which it re-exports) and Foundation (`URL`, `Data`). `Mock` and `MockProvider` speak MalibuCore's `Request` and
// `Response`: import MalibuCore too.
@_exported import Foundation
@_exported import MalibuTransport
