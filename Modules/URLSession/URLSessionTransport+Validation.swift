import Foundation
import HTTPTypes
@_spi(Malibu) import MalibuTransport

extension URLSessionTransport {
  /// Checks everything that can be checked before a byte is sent, and returns the request's URL.
  /// - Throws: `TransportError` with `TransportError/Code/invalidRequest` for a URL that is not absolute HTTP(S)
  ///   or a header with CR, LF or NUL; `TransportError/Code/unsupportedOption` for what URLSession cannot do here.
  static func validate(
    _ request: HTTPRequest,
    body: RequestBody?,
    options: TransferOptions
  ) throws(TransportError) -> URL {
    let url = try validURL(request)
    for field in request.headerFields {
      try checkHeader(name: field.name.rawName, value: field.value.utf8)
    }
    try checkBody(body, method: request.method)
    try checkOptions(options)
    try checkProxy(options.proxy, for: url)
    return url
  }

  static func validURL(_ request: HTTPRequest) throws(TransportError) -> URL {
    guard let url = request.url else {
      throw TransportError(
        code: .invalidRequest,
        message: "the request has no absolute URL (scheme '\(request.scheme ?? "")', authority "
          + "'\(request.authority ?? "")', path '\(request.path ?? "")')"
      )
    }
    guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
      throw TransportError(code: .invalidRequest, message: "'\(url.absoluteString)' is not an http or https URL")
    }
    guard let host = url.host, !host.isEmpty else {
      throw TransportError(code: .invalidRequest, message: "'\(url.absoluteString)' has no host")
    }
    try URLLength.check(url.absoluteString.utf8.count)
    return url
  }

  /// Rejects a header whose name or value would break the request apart (CR, LF or NUL).
  static func checkHeader(name: String, value: some Sequence<UInt8>) throws(TransportError) {
    let forbidden: (UInt8) -> Bool = { $0 == 0x0D || $0 == 0x0A || $0 == 0x00 }
    if name.isEmpty || name.utf8.contains(where: { forbidden($0) || $0 == UInt8(ascii: ":") || $0 == 0x20 }) {
      throw TransportError(code: .invalidRequest, message: "'\(name.debugDescription)' is not a valid header name")
    }
    if value.contains(where: forbidden) {
      throw TransportError(code: .invalidRequest, message: "the value of header '\(name)' contains CR, LF or NUL")
    }
  }

  private static func checkBody(_ body: RequestBody?, method: HTTPRequest.Method) throws(TransportError) {
    guard let body, method == .get || method == .head else { return }
    if case .data(let data) = body.storage, data.isEmpty { return }
    throw TransportError(
      code: .unsupportedOption,
      message: "URLSession cannot send a body with \(method.rawValue) (it fails such requests itself); "
        + "use another method or CurlTransport"
    )
  }

  /// What the platform's URLSession can do with a proxy setting. On Linux FoundationNetworking never reads
  /// `connectionProxyDictionary`; its libcurl reads the environment's proxy variables and nothing else, so an explicit
  /// proxy cannot be honoured, and ``ProxySettings/direct`` only when the environment names no proxy for the URL. On
  /// Apple platforms each proxy gets a session whose `connectionProxyDictionary` names it; URLSession takes proxy
  /// credentials only from its credential storage, which this transport keeps switched off.
  private static func checkProxy(_ proxy: ProxySettings, for url: URL) throws(TransportError) {
    switch proxy {
    case .environment:
      return
    case .direct:
      #if canImport(FoundationNetworking)
      if let variable = environmentProxyVariable(for: url) {
        throw TransportError(
          code: .unsupportedOption,
          message: "URLSession on Linux cannot bypass the proxy that the environment variable \(variable) names "
            + "(FoundationNetworking's libcurl always reads it); unset it, add the host to no_proxy, or use "
            + "CurlTransport"
        )
      }
      #endif
    case .server(let server):
      try server.validate()
      #if canImport(FoundationNetworking)
      throw TransportError(
        code: .unsupportedOption,
        message: "URLSession on Linux cannot use an explicit proxy (FoundationNetworking ignores "
          + "connectionProxyDictionary and reads only the http_proxy, https_proxy and no_proxy environment "
          + "variables); use CurlTransport, or ProxySettings.environment"
      )
      #else
      if server.credentials != nil {
        throw TransportError(
          code: .unsupportedOption,
          message: "URLSessionTransport cannot give a proxy credentials (URLSession takes them from credential "
            + "storage, which the transport keeps off); use CurlTransport"
        )
      }
      #endif
    }
  }

  #if canImport(FoundationNetworking)
  /// The name of the environment variable through which libcurl would send a request for `url` to a proxy, or `nil`
  /// when none applies (see `ProxySettings.environmentProxyVariable(scheme:host:)`).
  static func environmentProxyVariable(for url: URL) -> String? {
    ProxySettings.environmentProxyVariable(
      scheme: url.scheme?.lowercased() ?? "http",
      host: (url.host ?? "").lowercased()
    )
  }
  #else
  /// The `connectionProxyDictionary` for a proxy setting: `nil` keeps the configuration's own (the system's
  /// settings), an empty dictionary means no proxy.
  static func proxyDictionary(_ proxy: ProxySettings) -> [AnyHashable: Any]? {
    switch proxy {
    case .environment:
      return nil
    case .direct:
      return [:]
    case .server(let server):
      switch server.kind {
      case .http:
        return [
          "HTTPEnable": 1, "HTTPProxy": server.host, "HTTPPort": server.port,
          "HTTPSEnable": 1, "HTTPSProxy": server.host, "HTTPSPort": server.port,
          "ExceptionsList": server.bypass,
        ]
      case .socks5:
        return ["SOCKSEnable": 1, "SOCKSProxy": server.host, "SOCKSPort": server.port, "ExceptionsList": server.bypass]
      }
    }
  }
  #endif

  private static func checkOptions(_ options: TransferOptions) throws(TransportError) {
    if !options.decompression.isEnabled {
      throw TransportError(
        code: .unsupportedOption,
        message: "URLSession always decodes gzip, deflate and br bodies itself, so decompression cannot be disabled; "
          + "use CurlTransport to receive encoded bodies"
      )
    }
    #if canImport(FoundationNetworking)
    let tls = options.tls
    if tls.pinnedPublicKey != nil {
      throw TransportError(
        code: .unsupportedOption,
        message: "URLSession on Linux cannot pin public keys (FoundationNetworking never asks its delegate about "
          + "server trust); use CurlTransport"
      )
    }
    if tls.caFile != nil {
      throw TransportError(
        code: .unsupportedOption,
        message: "URLSession on Linux cannot add certificate authorities per request; use CurlTransport, or add the "
          + "authority to the system's trust store"
      )
    }
    if tls.insecure {
      throw TransportError(
        code: .unsupportedOption,
        message: "URLSession on Linux cannot skip certificate verification (FoundationNetworking never asks its "
          + "delegate about server trust); use CurlTransport"
      )
    }
    #else
    if let pins = options.tls.pinnedPublicKey { _ = try PublicKeyPins(pins) }
    #endif
  }
}
