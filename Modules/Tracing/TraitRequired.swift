#if !Tracing
// Without the package trait `Tracing`, MalibuTracing is built without its dependency, and its types only say how to
// enable it.

/// `HTTPClientAttributes` needs the package trait `Tracing` (`traits: ["Tracing"]` on Malibu's package dependency).
@available(*, unavailable, message: "needs Malibu's package trait: .package(url: …, traits: [\"Tracing\"])")
public enum HTTPClientAttributes: Sendable {}

/// `HTTPFieldsInjector` needs the package trait `Tracing` (`traits: ["Tracing"]` on Malibu's package dependency).
@available(*, unavailable, message: "needs Malibu's package trait: .package(url: …, traits: [\"Tracing\"])")
public struct HTTPFieldsInjector: Sendable {}

/// `TracedError` needs the package trait `Tracing` (`traits: ["Tracing"]` on Malibu's package dependency).
@available(*, unavailable, message: "needs Malibu's package trait: .package(url: …, traits: [\"Tracing\"])")
public struct TracedError: Sendable {}

/// `TracingMiddleware` needs the package trait `Tracing` (`traits: ["Tracing"]` on Malibu's package dependency).
@available(*, unavailable, message: "needs Malibu's package trait: .package(url: …, traits: [\"Tracing\"])")
public struct TracingMiddleware: Sendable {}
#endif
