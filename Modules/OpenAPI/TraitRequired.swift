#if !OpenAPI
// Without the package trait `OpenAPI`, MalibuOpenAPI is built without its dependency, and its types only say how to
// enable it.

/// `OpenAPITransport` needs the package trait `OpenAPI` (`traits: ["OpenAPI"]` on Malibu's package dependency).
@available(*, unavailable, message: "needs Malibu's package trait: .package(url: …, traits: [\"OpenAPI\"])")
public struct OpenAPITransport: Sendable {}
#endif
