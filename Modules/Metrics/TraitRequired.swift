#if !Metrics
// Without the package trait `Metrics`, MalibuMetrics is built without its dependency, and its types only say how to
// enable it.

/// `HTTPClientMetrics` needs the package trait `Metrics` (`traits: ["Metrics"]` on Malibu's package dependency).
@available(*, unavailable, message: "needs Malibu's package trait: .package(url: …, traits: [\"Metrics\"])")
public enum HTTPClientMetrics: Sendable {}

/// `MetricsMiddleware` needs the package trait `Metrics` (`traits: ["Metrics"]` on Malibu's package dependency).
@available(*, unavailable, message: "needs Malibu's package trait: .package(url: …, traits: [\"Metrics\"])")
public struct MetricsMiddleware: Sendable {}
#endif
