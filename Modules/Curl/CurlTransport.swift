public import Foundation
public import HTTPTypes
@_spi(Malibu) public import MalibuTransport

/// A ``/MalibuTransport/Transport`` on libcurl, built for speed: one multi handle driven by one dedicated thread,
/// connections kept alive and shared, HTTP/2 over TLS when the server offers it, streaming both ways with
/// back-pressure.
///
/// ```swift
/// let transport = CurlTransport()
/// let request = HTTPRequest(method: .get, url: URL(string: "https://example.com/data.json")!)
/// let (head, data, _) = try await transport.data(for: request, body: nil, options: .init(), upTo: 10 << 20)
///
/// let response = try await transport.send(request, body: nil, options: .init())
/// for try await chunk in response.body { consume(chunk) }   // streamed, with back-pressure
/// ```
///
/// The transport sends exactly the request it is given: the method, the header fields as they are (libcurl adds
/// `Host` and the body's framing, but no `Accept`, `Expect` or `Content-Type` of its own) and the body. Redirects,
/// timeouts, decompression, TLS, the HTTPS-only policy and the proxy follow ``/MalibuTransport/TransferOptions``. Errors are
/// ``/MalibuTransport/TransportError``s.
///
/// Threading: the first request starts a thread named `malibu-curl` that owns every libcurl handle. Progress
/// handlers run on that thread and must return quickly. Tasks may run there too (``taskExecutor``), which spares
/// their requests the hops between threads. ``shutdown()`` (or the release of the last reference to the
/// transport, which lets running transfers finish first) ends the thread and frees every handle.
public final class CurlTransport: Transport {
  /// A transport for everyone who does not need their own configuration; it lives as long as the process.
  public static let shared = CurlTransport()

  /// The configuration the transport was created with.
  public let configuration: Configuration

  private let loop: CurlLoop

  /// Creates a transport. No thread starts and no connection opens until the first request.
  /// - Parameter configuration: Connection limits, buffer size and HTTP/2 preference.
  public init(configuration: Configuration = .init()) {
    self.configuration = configuration
    loop = CurlLoop(configuration: configuration)
  }

  deinit {
    loop.release()
  }

  /// The transport's loop thread as a task executor, for callers who want their requests to cost no thread hop.
  ///
  /// A task that prefers it runs on the `malibu-curl` thread, between the loop's rounds: sending a request hands it
  /// to libcurl without waking another thread, and the response resumes the task on the same thread, without a
  /// trip through the global pool. For a loop of requests this is the shape of a C program on libcurl: one thread.
  ///
  /// ```swift
  /// let transport = CurlTransport()
  /// try await withTaskExecutorPreference(transport.taskExecutor) {
  ///   for path in paths {
  ///     let (head, data, _) = try await transport.data(for: request(path), body: nil, options: .init(), upTo: 1 << 20)
  ///     consume(head, data)  // runs on the loop thread
  ///   }
  /// }
  /// ```
  ///
  /// While such a task runs, no transfer of this transport makes progress: keep the work between requests short, and
  /// never block the thread (a semaphore wait for a response of this transport would wait for ever). Child tasks
  /// inherit the preference, and so do the requests `Networking` starts for such a task; `Task { }` does not, unless
  /// given it with `Task(executorPreference:)`. Once the transport is shut down (or released and its last transfer
  /// done), jobs sent here run on the global concurrent executor. Never `nil`.
  public var taskExecutor: (any TaskExecutor)? {
    loop
  }

  /// Sends a request and returns once the final response head has arrived; the body streams after it.
  ///
  /// Cancelling the calling task before the head ends the call with
  /// ``/MalibuTransport/TransportError/Code/cancelled`` at once; after it, dropping or cancelling the body stops the
  /// transfer and releases the connection.
  /// - Parameters:
  ///   - request: The request; its URL must be absolute `http` or `https`.
  ///   - body: The request body, if any.
  ///   - options: Timeouts, redirects, decompression, TLS, progress and request compression.
  /// - Returns: The final response head (decoded header fields when the body is decoded), its URL and the body.
  /// - Throws: ``/MalibuTransport/TransportError``.
  public func send(
    _ request: HTTPRequest,
    body: RequestBody?,
    options: TransferOptions
  ) async throws
    -> TransportResponse
  {
    let request = try RequestValidator.applyPolicies(to: request, options: options)
    let url = try RequestValidator.validate(request)
    let id = loop.nextID()
    let loop = self.loop
    defer { HandOff.acquire() }
    return try await withTaskCancellationHandler {
      try await withUnsafeThrowingContinuation { continuation in
        loop.start(Job(id: id, request: request, url: url, body: body, options: options, sink: .stream(continuation)))
      }
    } onCancel: {
      loop.submit(.cancel(id))
    }
  }

  /// Sends a request and collects the whole body: the caller is woken once, when the exchange is complete, and the
  /// body is written into one buffer sized from `Content-Length` up front when the body is not decoded.
  /// - Parameters:
  ///   - request: The request; its URL must be absolute `http` or `https`.
  ///   - body: The request body, if any.
  ///   - options: Transfer options.
  ///   - maxBytes: The largest body accepted (after decoding).
  /// - Returns: The final response head, the body and the final URL.
  /// - Throws: ``/MalibuTransport/TransportError``; ``/MalibuTransport/TransportError/Code/bodyTooLarge`` past
  ///   `maxBytes`, as soon as it is known.
  public func data(
    for request: HTTPRequest,
    body: RequestBody?,
    options: TransferOptions,
    upTo maxBytes: Int
  ) async throws -> (HTTPResponse, Data, URL?) {
    let response = try await collect(request, body: body, options: options, upTo: maxBytes)
    return (response.head, response.data, response.url)
  }

  /// Sends a request and collects the whole body, as `data(for:body:options:upTo:)` does, with every figure of the
  /// transfer's metrics, read from libcurl once, when the transfer has ended.
  /// - Parameters:
  ///   - request: The request; its URL must be absolute `http` or `https`.
  ///   - body: The request body, if any.
  ///   - options: Transfer options.
  ///   - maxBytes: The largest body accepted (after decoding).
  /// - Returns: The final response head, the body, the final URL and the metrics.
  /// - Throws: ``/MalibuTransport/TransportError``; ``/MalibuTransport/TransportError/Code/bodyTooLarge`` past
  ///   `maxBytes`, as soon as it is known.
  public func collect(
    _ request: HTTPRequest,
    body: RequestBody?,
    options: TransferOptions,
    upTo maxBytes: Int
  ) async throws -> CollectedResponse {
    let request = try RequestValidator.applyPolicies(to: request, options: options)
    let url = try RequestValidator.validate(request)
    let id = loop.nextID()
    let loop = self.loop
    defer { HandOff.acquire() }
    let limit = max(0, maxBytes)
    return try await withTaskCancellationHandler {
      try await withUnsafeThrowingContinuation { continuation in
        loop.start(
          Job(
            id: id,
            request: request,
            url: url,
            body: body,
            options: options,
            sink: .collect(limit: limit, continuation)
          )
        )
      }
    } onCancel: {
      loop.submit(.cancel(id))
    }
  }

  /// Cancels every transfer (their callers get ``/MalibuTransport/TransportError/Code/cancelled``), ends the loop
  /// thread, waits for it and frees every libcurl handle and connection. Later requests fail with
  /// ``/MalibuTransport/TransportError/Code/cancelled``.
  /// Calling it again does nothing.
  public func shutdown() {
    loop.shutdown()
  }

  /// Easy handles held by this transport's transfers now (pooled ones not counted): a transfer waiting for room
  /// holds none. For tests.
  var easyHandlesHeld: Int { loop.handlesHeld }

  /// Transfers waiting for a connection to have room for them. For tests.
  var transfersWaiting: Int { loop.transfersWaiting }

  /// Whether this transport's `malibu-curl` thread is running (tests: shutdown ends it).
  var loopThreadRunning: Bool { loop.threadRunning }

  /// Transfers that had to wait for room since the transport started. For tests.
  var transfersWaited: Int { loop.transfersWaited }

  /// Shuts down gracefully: a request sent from now on fails at once with
  /// ``/MalibuTransport/TransportError/Code/shutDown``; the transfers already running (a body still streaming
  /// included) go on for up to `gracePeriod`, and those still running then are cancelled, as by ``shutdown()``. Returns
  /// once the loop thread has ended and every handle and connection is freed.
  ///
  /// ```swift
  /// await transport.shutdown(gracePeriod: .seconds(10))
  /// ```
  /// Cancelling the calling task ends the grace period at once. A later ``shutdown()`` or
  /// `shutdown(gracePeriod:)` (from another task too) ends the same way.
  /// - Parameter gracePeriod: How long running transfers may go on.
  public func shutdown(gracePeriod: Duration) async {
    let loop = self.loop
    guard loop.drain(refusing: .shuttingDown("CurlTransport")) else {
      loop.shutdown()
      return
    }
    await withTaskGroup(of: Void.self) { group in
      group.addTask { await loop.waitUntilStopped() }
      group.addTask { try? await Task.sleep(for: gracePeriod) }
      _ = await group.next()
      // Whichever came first: cancel what still runs (nothing, when the transfers are done) and join the thread.
      loop.shutdown()
      group.cancelAll()
    }
  }
}

extension CurlTransport: Drainable {}
