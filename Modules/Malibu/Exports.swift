@_exported import Foundation
@_exported import HTTPTypes
@_exported import Logging
@_exported import MalibuAuth
@_exported import MalibuCore
@_exported import MalibuEncoding
@_exported import MalibuGzip
@_exported import MalibuJSON
@_exported import MalibuLogging
@_exported import MalibuMocking
@_exported import MalibuPromises
@_exported import MalibuSerialization
@_exported import MalibuStorage
@_exported import MalibuTransport
@_exported import MalibuTypedRequests
@_exported import MalibuURLSession
@_exported import MalibuValidation

// libcurl, hence MalibuCurl, exists on Linux and macOS only (the manifest's condition on the facade's dependency).
#if canImport(MalibuCurl)
@_exported import MalibuCurl
#endif

#if canImport(FoundationNetworking)
@_exported import FoundationNetworking
#endif
