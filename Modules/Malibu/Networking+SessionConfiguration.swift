import Logging
@_spi(Malibu) import MalibuCore
@_spi(Malibu) import MalibuLogging

extension Networking {
  /// Applies what `configuration` means on every transport (see ``SessionConfiguration``): the transfer options and
  /// the lowest layer of header fields, and a warning on `logger` for each setting no Malibu transport uses.
  func adopt(_ configuration: SessionConfiguration, transport: TransportKind, logger: NetworkLogger) {
    let defaults = configuration.defaults(isURLSession: transport.isURLSession)
    settings.withLock {
      $0.transferOptions = defaults.transferOptions
      $0.sessionHeaders = defaults.headers
      $0.sessionCachePolicy = defaults.cachePolicy
    }
    for warning in defaults.ignored {
      logger.logger.warning("Malibu: the session configuration's \(warning)")
    }
  }
}

extension Request {
  /// Takes the session configuration's cache policy (`sessionCachePolicy`, if any) when this request kept the default
  /// (`CachePolicy.useProtocolCachePolicy`).
  mutating func adoptCachePolicy(_ sessionCachePolicy: CachePolicy?) {
    guard let sessionCachePolicy, cachePolicy == .useProtocolCachePolicy else { return }
    cachePolicy = sessionCachePolicy
  }
}
