#if Tracing
import Foundation
import InMemoryTracing
@_spi(Malibu) import MalibuCore
import Tracing

/// An `InMemoryTracer` that propagates its context as W3C Trace Context does: a `traceparent` field of the form
/// `00-<32 hex trace id>-<16 hex span id>-01`, so that a server sees what an OpenTelemetry tracer would send.
struct W3CTestTracer: Tracer {
  typealias Span = InMemorySpan

  let recorder: InMemoryTracer

  init() {
    let counter = Counter()
    recorder = InMemoryTracer(
      idGenerator: .init(
        nextTraceID: { String(format: "%032x", counter.next()) },
        nextSpanID: { String(format: "%016x", counter.next()) }
      )
    )
  }

  func startSpan<Instant: TracerInstant>(
    _ operationName: String,
    context: @autoclosure () -> ServiceContext,
    ofKind kind: SpanKind,
    at instant: @autoclosure () -> Instant,
    function: String,
    file fileID: String,
    line: UInt
  ) -> InMemorySpan {
    recorder.startSpan(
      operationName,
      context: context(),
      ofKind: kind,
      at: instant(),
      function: function,
      file: fileID,
      line: line
    )
  }

  func forceFlush() {}

  func inject<Carrier, Inject: Injector>(_ context: ServiceContext, into carrier: inout Carrier, using injector: Inject)
  where Carrier == Inject.Carrier {
    guard let span = context.inMemorySpanContext else { return }
    injector.inject("00-\(span.traceID)-\(span.spanID)-01", forKey: "traceparent", into: &carrier)
  }

  func extract<Carrier, Extract: Extractor>(
    _ carrier: Carrier,
    into context: inout ServiceContext,
    using extractor: Extract
  ) where Carrier == Extract.Carrier {}

  var finishedSpans: [FinishedInMemorySpan] { recorder.finishedSpans }
}

/// A thread-safe counter for the tracer's ids (which must never be zero).
final class Counter: Sendable {
  private let value = Locked<UInt64>(0)

  func next() -> UInt64 {
    value.withLock { value in
      value += 1
      return value
    }
  }
}
#endif
