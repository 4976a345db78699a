#if !Lifecycle
// Without the package trait `Lifecycle`, MalibuLifecycle is built without its dependency, and its types only say how to
// enable it.

/// `MalibuService` needs the package trait `Lifecycle` (`traits: ["Lifecycle"]` on Malibu's package dependency).
@available(*, unavailable, message: "needs Malibu's package trait: .package(url: …, traits: [\"Lifecycle\"])")
public struct MalibuService: Sendable {}
#endif
