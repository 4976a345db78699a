import CCurl
import Foundation
import HTTPTypes
import MalibuCore
import MalibuTransport

extension Transfer {
  /// Bodies up to this size are copied into libcurl (`CURLOPT_COPYPOSTFIELDS`); larger ones are lent to it.
  private static let copiedBodyLimit = 64 << 10

  /// Sets every option of one hop on a fresh, reset or clean easy handle. A handle is clean when the transfer before
  /// set only the options every transfer sets (``handleNeedsReset`` stayed `false`), so it needs no
  /// `curl_easy_reset`, which costs as much as all the options set here together; the options that never change
  /// are set only on a handle that does not have them yet (``handlePrimed``).
  func configure(_ easy: UnsafeMutableRawPointer, now: UInt64) throws(TransportError) {
    let options = job.options
    let configuration = engine.configuration
    let context = self.context
    setString(easy, CURLOPT_URL, url)
    if !handlePrimed {
      setConstantOptions(easy, configuration)
      handlePrimed = true
    }
    CCurl_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer)
    CCurl_easy_setopt_pointer(easy, CURLOPT_PRIVATE, context)
    CCurl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, context)
    CCurl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, context)
    try configureConnectionPolicy(easy)

    // Set on every hop, 0 (libcurl's default) when absent: a pooled handle is reused without `curl_easy_reset`.
    let connectTimeout = options.timeouts.connect.map { Monotonic.milliseconds(Monotonic.nanoseconds($0)) } ?? 0
    CCurl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, connectTimeout)
    CCurl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, totalDeadline.map { Monotonic.milliseconds($0 - now) } ?? 0)

    let tls = options.tls
    CCurl_easy_setopt_long(easy, CURLOPT_SSL_VERIFYPEER, tls.insecure ? 0 : 1)
    CCurl_easy_setopt_long(easy, CURLOPT_SSL_VERIFYHOST, tls.insecure ? 0 : 2)
    if let caFile = tls.caFile {
      handleNeedsReset = true
      setString(easy, CURLOPT_CAINFO, caFile)
    }
    if let pin = tls.pinnedPublicKey {
      handleNeedsReset = true
      setString(easy, CURLOPT_PINNEDPUBLICKEY, pin)
    }

    switch options.proxy {
    case .environment:
      break  // libcurl reads http_proxy, https_proxy, all_proxy and no_proxy itself
    case .direct:
      handleNeedsReset = true
      setString(easy, CURLOPT_PROXY, "")  // an empty proxy disables the environment's too
    case .server(let server):
      handleNeedsReset = true
      configureProxy(easy, server)
    }

    if options.progress != nil {
      handleNeedsReset = true
      CCurl_easy_setopt_long(easy, CURLOPT_NOPROGRESS, 0)
      CCurl_easy_setopt_xferinfo_function(easy, CURLOPT_XFERINFOFUNCTION) {
        context,
        downloadTotal,
        downloaded,
        uploadTotal,
        uploaded in
        let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
        transfer.progressed(
          downloadTotal: downloadTotal,
          downloaded: downloaded,
          uploadTotal: uploadTotal,
          uploaded: uploaded
        )
        return 0
      }
      CCurl_easy_setopt_pointer(easy, CURLOPT_XFERINFODATA, context)
    }
    // Wait for a connection that may multiplex rather than open one more (HTTP/2).
    CCurl_easy_setopt_long(easy, CURLOPT_PIPEWAIT, configuration.prefersHTTP2 && url.hasPrefix("https:") ? 1 : 0)
    try configureMethodAndBody(easy)
    configurePreRequest(easy)
  }

  /// libcurl calls the pre-request callback before each send of the hop's request, on a new or a pooled connection,
  /// and again when it sends the request once more on a new connection because a reused one died. There
  /// ``Transfer/sendingRequest(to:)`` checks a pooled connection's address against the connection policy and refuses
  /// a second send of a request that is not idempotent. Set only when either applies (the handle is then reset before
  /// it is pooled again), so an idempotent request under a policy that does not check its hop pays nothing.
  private func configurePreRequest(_ easy: UnsafeMutableRawPointer) {
    let checksAddress = job.options.connectionPolicy.checks(redirectsFollowed: machine.redirectsFollowed)
    guard checksAddress || !request.method.isIdempotent else { return }
    handleNeedsReset = true
    CCurl_easy_setopt_prereq_function(easy, CURLOPT_PREREQFUNCTION) { context, primaryIP, _, _, _ in
      Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue().sendingRequest(to: primaryIP)
    }
    CCurl_easy_setopt_pointer(easy, CURLOPT_PREREQDATA, context)
  }

  /// An explicit proxy: its address and kind, its credentials (set apart from the URL, so that nothing needs escaping
  /// and nothing is logged), and its bypass list, which replaces the environment's `no_proxy`.
  private func configureProxy(_ easy: UnsafeMutableRawPointer, _ server: ProxyServer) {
    let isHTTP = server.kind == .http
    setString(easy, CURLOPT_PROXY, "\(isHTTP ? "http" : "socks5h")://\(server.urlHost):\(server.port)")
    let type = isHTTP ? CURLPROXY_HTTP : CURLPROXY_SOCKS5_HOSTNAME
    CCurl_easy_setopt_long(easy, CURLOPT_PROXYTYPE, Int(type.rawValue))
    if let credentials = server.credentials {
      setString(easy, CURLOPT_PROXYUSERNAME, credentials.user)
      setString(easy, CURLOPT_PROXYPASSWORD, credentials.password)
    }
    setString(easy, CURLOPT_NOPROXY, server.bypass.joined(separator: ","))
  }

  /// The options every transfer of this transport sets alike: set once on a handle, which keeps them while it is
  /// pooled without a reset (parsing the protocol list alone cost more than the rest of them).
  private func setConstantOptions(_ easy: UnsafeMutableRawPointer, _ configuration: CurlTransport.Configuration) {
    CCurl_easy_setopt_long(easy, CURLOPT_PATH_AS_IS, 1)
    CCurl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
    setString(easy, CURLOPT_PROTOCOLS_STR, "http,https")
    let version = configuration.prefersHTTP2 ? CURL_HTTP_VERSION_2TLS : CURL_HTTP_VERSION_1_1
    CCurl_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, Int(version))
    CCurl_easy_setopt_long(easy, CURLOPT_BUFFERSIZE, min(max(configuration.receiveBufferSize, 16 << 10), 10 << 20))
    // libcurl must not decode: ContentDecoder does, within the decompression limit.
    CCurl_easy_setopt_long(easy, CURLOPT_HTTP_CONTENT_DECODING, 0)
    CCurl_easy_setopt_long(easy, CURLOPT_SUPPRESS_CONNECT_HEADERS, 1)
    CCurl_easy_setopt_write_function(easy, CURLOPT_HEADERFUNCTION) { buffer, size, count, context in
      let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
      return transfer.receivedHeader(UnsafeRawBufferPointer(start: buffer, count: size * count))
    }
    // Every new socket is noted, for the idle check's look at the socket (see `Transfer.lastReceived(now:)`).
    CCurl_easy_setopt_sockopt_function(easy, CURLOPT_SOCKOPTFUNCTION) { engine, socket, _ in
      Unmanaged<CurlEngine>.fromOpaque(engine!).takeUnretainedValue().sockets.insert(socket)
      return CURL_SOCKOPT_OK
    }
    CCurl_easy_setopt_pointer(easy, CURLOPT_SOCKOPTDATA, Unmanaged.passUnretained(engine).toOpaque())
    CCurl_easy_setopt_write_function(easy, CURLOPT_WRITEFUNCTION) { buffer, size, count, context in
      let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
      return transfer.received(UnsafeRawBufferPointer(start: buffer, count: size * count))
    }
  }

  /// The method, the body and the header fields, so that exactly what was asked is sent.
  private func configureMethodAndBody(_ easy: UnsafeMutableRawPointer) throws(TransportError) {
    let method = request.method
    let fields = request.headerFields
    var sendsBody = false
    compressing = false
    // Anything but a GET without a body sets options the next transfer on this handle must not inherit.
    if method != .get || body != nil { handleNeedsReset = true }
    if method == .head {
      CCurl_easy_setopt_long(easy, CURLOPT_NOBODY, 1)
    } else if body != nil || method == .post || method == .put || method == .patch {
      sendsBody = true
      if method != .post { setString(easy, CURLOPT_CUSTOMREQUEST, method.rawValue) }
      CCurl_easy_setopt_long(easy, CURLOPT_POST, 1)
      compressing = body != nil && job.options.requestCompression.isEnabled && !fields.contains(.contentEncoding)
      try configureBody(easy)
    } else if method != .get {
      setString(easy, CURLOPT_CUSTOMREQUEST, method.rawValue)
    }

    var list: UnsafeMutablePointer<curl_slist>?
    for field in fields {
      // Framing is the transport's alone, on every method: libcurl writes Content-Length or Transfer-Encoding from
      // the body and manages the connection, so a caller's value would desynchronise a pooled connection.
      if Self.isFraming(field.name) { continue }
      field.withUnsafeBytesOfValue { value in
        Self.addLine(to: &list, name: field.name.rawName, value: UnsafeRawBufferPointer(value))
      }
    }
    // Headers libcurl would add on its own: a name without a value removes them.
    if !fields.contains(.accept) { Self.addLine(to: &list, name: "Accept", value: nil) }
    if sendsBody {
      if !fields.contains(.expect) { Self.addLine(to: &list, name: "Expect", value: nil) }
      if !fields.contains(.contentType) { Self.addLine(to: &list, name: "Content-Type", value: nil) }
    }
    if compressing {
      Self.gzip.withUTF8Buffer { Self.addLine(to: &list, name: "Content-Encoding", value: UnsafeRawBufferPointer($0)) }
    }
    headerList = list
    CCurl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, list)
  }

  private func configureBody(_ easy: UnsafeMutableRawPointer) throws(TransportError) {
    guard let body else {
      CCurl_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, 0)
      setString(easy, CURLOPT_COPYPOSTFIELDS, "")
      return
    }
    if !compressing, case .data(let data) = body.storage {
      CCurl_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(data.count))
      if data.isEmpty {
        setString(easy, CURLOPT_COPYPOSTFIELDS, "")
      } else if data.count <= Self.copiedBodyLimit {
        data.withUnsafeBytes { bytes in
          _ = CCurl_easy_setopt_pointer(
            easy,
            CURLOPT_COPYPOSTFIELDS,
            UnsafeMutableRawPointer(mutating: bytes.baseAddress!)
          )
        }
      } else {
        // Lent without a copy. The bytes of a Data this large live in heap storage that does not move while the
        // value is alive and unchanged; `uploadData` keeps it alive, unchanged, until the transfer ends.
        uploadData = data
        let pointer = uploadData!.withUnsafeBytes { UnsafeMutableRawPointer(mutating: $0.baseAddress!) }
        CCurl_easy_setopt_pointer(easy, CURLOPT_POSTFIELDS, pointer)
      }
      return
    }
    upload = try makeUploadSource()
    let length: curl_off_t = compressing ? -1 : body.length.map { curl_off_t($0) } ?? -1
    CCurl_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, length)
    CCurl_easy_setopt_read_function(easy, CURLOPT_READFUNCTION) { buffer, size, count, context in
      let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
      return transfer.send(into: UnsafeMutableRawBufferPointer(start: buffer, count: size * count))
    }
    CCurl_easy_setopt_pointer(easy, CURLOPT_READDATA, context)
    CCurl_easy_setopt_seek_function(easy, CURLOPT_SEEKFUNCTION) { context, offset, origin in
      let transfer = Unmanaged<Transfer>.fromOpaque(context!).takeUnretainedValue()
      return transfer.rewind(offset: offset, origin: origin)
    }
    CCurl_easy_setopt_pointer(easy, CURLOPT_SEEKDATA, context)
  }

  /// A reader for one pass over the body.
  func makeUploadSource() throws(TransportError) -> any UploadSource {
    var reader: any UploadSource
    switch body?.storage {
    case .data(let data):
      reader = DataUploadSource(data)
    case .source(let source):
      do {
        reader = ReaderUploadSource(try source.makeReader())
      } catch {
        throw TransportError(
          code: .invalidRequest,
          message: "the request body cannot be read: \(error)",
          underlyingError: error
        )
      }
    case .stream(let stream):
      let loop = engine.loop
      let id = self.id
      let upload = UploadBuffer(onReadable: { loop.submit(.resumeSending(id)) })
      streamUpload = upload
      producer = upload.pump(stream)
      reader = upload
    case nil:
      reader = DataUploadSource(Data())
    }
    return compressing ? GzipUploadSource(reader) : reader
  }

  private static let gzip: StaticString = "gzip"

  /// Whether a caller's field is one the transport alone writes: `Content-Length`, `Transfer-Encoding`, `Connection`.
  static func isFraming(_ name: HTTPField.Name) -> Bool {
    name == .contentLength || name == .transferEncoding || name == .connection
  }

  /// Appends one header line to `list`, written straight into a temporary buffer (no Swift string is built for it):
  /// `Name: value`; `Name;` for an empty value (libcurl's way to send one); `Name:` for `nil`, which stops libcurl
  /// from sending a header of its own by that name.
  private static func addLine(
    to list: inout UnsafeMutablePointer<curl_slist>?,
    name: String,
    value: UnsafeRawBufferPointer?
  ) {
    var name = name
    name.withUTF8 { name in
      let tail = value.map { $0.isEmpty ? 1 : 2 + $0.count } ?? 1
      let count = name.count + tail + 1
      withUnsafeTemporaryAllocation(of: CChar.self, capacity: count) { line in
        let bytes = UnsafeMutableRawBufferPointer(line)
        bytes.copyMemory(from: UnsafeRawBufferPointer(name))
        var end = name.count
        if let value, !value.isEmpty {
          bytes[end] = UInt8(ascii: ":")
          bytes[end + 1] = UInt8(ascii: " ")
          UnsafeMutableRawBufferPointer(rebasing: bytes[(end + 2)...]).copyMemory(from: value)
          end += 2 + value.count
        } else {
          bytes[end] = value == nil ? UInt8(ascii: ":") : UInt8(ascii: ";")
          end += 1
        }
        bytes[end] = 0
        if let appended = curl_slist_append(list, line.baseAddress!) { list = appended }
      }
    }
  }

  private func setString(_ easy: UnsafeMutableRawPointer, _ option: CURLoption, _ value: String) {
    value.withCString { _ = CCurl_easy_setopt_string(easy, option, $0) }
  }
}
