// What a transport call needs besides this module, so that `import MalibuURLSession` alone is enough to send a request:
// MalibuTransport (`Transport`, `TransferOptions`, `RequestBody`, `TransportError`, and HTTPTypes, which it
// re-exports) and Foundation (`URL`, `Data`).
@_exported import Foundation
@_exported import MalibuTransport
