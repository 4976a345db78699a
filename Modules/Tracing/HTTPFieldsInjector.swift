#if Tracing
public import HTTPTypes
public import Instrumentation

/// Writes trace context into HTTP header fields, for `Instrument.inject(_:into:using:)`: each key becomes a field
/// (`traceparent`, `tracestate`, `baggage` for a W3C propagator), replacing a field of that name already there, so a
/// request sent again carries the context of its new span only. A key that is not a valid field name is skipped.
///
/// ```swift
/// var fields = request.headerFields
/// InstrumentationSystem.instrument.inject(span.context, into: &fields, using: HTTPFieldsInjector())
/// ```
public struct HTTPFieldsInjector: Injector {
  /// Creates the injector.
  public init() {}

  /// Sets the field `key` to `value`.
  /// - Parameters:
  ///   - value: The field value.
  ///   - key: The field name.
  ///   - carrier: The header fields.
  public func inject(_ value: String, forKey key: String, into carrier: inout HTTPFields) {
    guard let name = HTTPField.Name(key) else { return }
    carrier[name] = value
  }
}
#endif
