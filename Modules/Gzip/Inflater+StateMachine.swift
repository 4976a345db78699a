import CZlib

extension Inflater {
  /// The largest piece handed to zlib at once (`avail_in` is 32 bits).
  private static let maxPiece = 1 << 30

  /// Routes the input through the state machine; every byte is either consumed or rejected with an error.
  func process(_ input: UnsafeRawBufferPointer, _ sink: (UnsafeRawBufferPointer) throws -> Void) throws {
    guard var base = input.baseAddress else { return }
    var count = input.count
    if leadingBytes.count < 4, leadingBytes.count == totalIn {
      leadingBytes += input.prefix(4 - leadingBytes.count)
    }
    while count > 0 {
      let used: Int
      switch state {
      case .inflating:
        used = try run(UnsafeRawBufferPointer(start: base, count: min(count, Self.maxPiece)), sink)
      case .idle(let sniffed):
        let first = base.load(as: UInt8.self)
        var resolved = format
        if format == .automatic {
          if let sniffed {
            resolved = .sniff(sniffed, first)
          } else if count >= 2 {
            resolved = .sniff(first, base.load(fromByteOffset: 1, as: UInt8.self))
          } else {
            state = .idle(sniffed: first)
            totalIn += 1
            return
          }
        }
        try start(resolved)
        if let sniffed {
          try replay(sniffed, sink)
        }
        used = 0
      case .memberEnded(let sawMagic):
        let byte = base.load(as: UInt8.self)
        if !sawMagic {
          guard byte == 0x1f else { throw trailingData() }
          if count == 1 {
            state = .memberEnded(sawMagic: true)
            used = 1
          } else {
            guard base.load(fromByteOffset: 1, as: UInt8.self) == 0x8b else { throw trailingData() }
            try resetForNextMember()
            used = 0
          }
        } else {
          guard byte == 0x8b else { throw trailingData() }
          try resetForNextMember()
          try replay(0x1f, sink)
          used = 0
        }
      case .ended:
        throw trailingData()
      case .closed(let cause):
        throw GzipError.closed("the inflater", cause: cause)
      }
      base += used
      count -= used
      totalIn += used
    }
  }

  private func trailingData() -> GzipError {
    GzipError(
      code: .trailingData,
      message:
        "unexpected bytes after the end of the \((detectedFormat ?? format).displayName) stream (at offset \(totalIn))"
    )
  }

  /// The error for data zlib rejects. Before any output, it says which format was expected (or that none was
  /// recognised) and that the bytes are not compressed data, quoting the first of them; later, that the stream of
  /// that format is corrupt.
  private func dataError(_ status: Int32) -> GzipError {
    let resolved = detectedFormat ?? format
    let zlibText = stream.pointee.msg.map { "zlib: " + String(cString: $0) } ?? "zlib status \(status)"
    let sniffed = leadingBytes.count >= 2 ? Format.sniff(leadingBytes[0], leadingBytes[1]) : nil
    guard totalOut == 0 else {
      return GzipError(code: .corrupt, message: "the \(resolved.displayName) data is corrupt (\(zlibText))")
    }
    let start = "it starts with \(Self.quote(leadingBytes))"
    let message: String
    if format == .automatic, resolved == .rawDeflate {
      message =
        "the data is not compressed: \(start), neither the gzip magic (1f 8b) nor a zlib header (such as 78 9c), "
        + "and it is not raw deflate data either (\(zlibText))"
    } else if resolved == .gzip, sniffed != .gzip {
      message = "the data is not gzip, and not compressed data: a gzip stream starts with 1f 8b, \(start) (\(zlibText))"
    } else if resolved == .zlib, sniffed != .zlib {
      message =
        "the data is not zlib, and not compressed data: a zlib stream starts with a header such as 78 9c, \(start) "
        + "(\(zlibText))"
    } else if resolved == .rawDeflate {
      message = "the data is not raw deflate, and not compressed data: \(start) (\(zlibText))"
    } else {
      message = "the \(resolved.displayName) data is corrupt (\(zlibText))"
    }
    return GzipError(code: .corrupt, message: message)
  }

  /// `48 65 6c 6c ("Hell")`: bytes in hex, and as ASCII with `.` for what is not printable.
  static func quote(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef")
    let hex = bytes.map { String([digits[Int($0 >> 4)], digits[Int($0 & 0x0f)]]) }.joined(separator: " ")
    let text = String(bytes.map { (0x20..<0x7f).contains($0) ? Character(UnicodeScalar($0)) : "." })
    return "\(hex) (\"\(text)\")"
  }

  /// Initialises zlib for a concrete format.
  private func start(_ resolved: Format) throws {
    let status = CZlib_inflateInit2(stream, resolved.windowBits)
    guard status == Z_OK else {
      throw GzipError.zlib(.internal, "inflateInit2 failed", status: status, stream: stream)
    }
    zlibReady = true
    detectedFormat = resolved
    state = .inflating
  }

  private func resetForNextMember() throws {
    let status = inflateReset(stream)
    guard status == Z_OK else {
      throw GzipError.zlib(.internal, "inflateReset failed", status: status, stream: stream)
    }
    state = .inflating
  }

  /// Feeds one byte that was held back (while sniffing, or while checking a member's magic) to zlib.
  private func replay(_ byte: UInt8, _ sink: (UnsafeRawBufferPointer) throws -> Void) throws {
    var byte = byte
    let used = try withUnsafeBytes(of: &byte) { try run($0, sink) }
    guard used == 1 else {
      throw GzipError(code: .internal, message: "zlib did not accept a header byte")
    }
  }

  /// Runs zlib over `input` until it is consumed or the stream ends; returns the bytes consumed.
  private func run(_ input: UnsafeRawBufferPointer, _ sink: (UnsafeRawBufferPointer) throws -> Void) throws -> Int {
    let stream = self.stream
    let output = buffer.assumingMemoryBound(to: Bytef.self)
    stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress!.assumingMemoryBound(to: Bytef.self))
    stream.pointee.avail_in = uInt(input.count)
    defer {
      stream.pointee.next_in = nil
      stream.pointee.avail_in = 0
      stream.pointee.next_out = nil
      stream.pointee.avail_out = 0
    }
    while true {
      let room = outputRoom()
      let availIn = stream.pointee.avail_in
      stream.pointee.next_out = output
      stream.pointee.avail_out = uInt(room)
      let status = CZlib.inflate(stream, Z_NO_FLUSH)
      let produced = room - Int(stream.pointee.avail_out)
      if produced > 0 {
        try deliver(produced, sink)
      }
      switch status {
      case Z_OK:
        if stream.pointee.avail_in == 0 && stream.pointee.avail_out != 0 {
          return input.count
        }
        if produced == 0 && stream.pointee.avail_in == availIn {
          throw GzipError.zlib(.internal, "inflate made no progress", status: status, stream: stream)
        }
      case Z_STREAM_END:
        state = detectedFormat == .gzip ? .memberEnded(sawMagic: false) : .ended
        return input.count - Int(stream.pointee.avail_in)
      case Z_BUF_ERROR where stream.pointee.avail_in == 0:
        return input.count
      case Z_NEED_DICT:
        throw GzipError(code: .corrupt, message: "the zlib stream needs a preset dictionary, which is not supported")
      case Z_DATA_ERROR:
        throw dataError(status)
      case Z_MEM_ERROR:
        throw GzipError.zlib(.internal, "zlib ran out of memory", status: status, stream: stream)
      default:
        throw GzipError.zlib(.internal, "inflate failed", status: status, stream: stream)
      }
    }
  }

  /// The output space for the next zlib call: one byte more than the limit allows, so that crossing the
  /// limit is seen as soon as zlib produces that byte.
  @inline(__always)
  private func outputRoom() -> Int {
    guard let limit else { return Self.bufferSize }
    let remaining = limit - totalOut
    return remaining < Self.bufferSize ? remaining + 1 : Self.bufferSize
  }

  /// Hands `produced` bytes of the buffer to the sink, or as many as the limit allows and then throws.
  @inline(__always)
  private func deliver(_ produced: Int, _ sink: (UnsafeRawBufferPointer) throws -> Void) throws {
    if let limit, produced > limit - totalOut {
      let allowed = limit - totalOut
      totalOut = limit
      if allowed > 0 {
        try sink(UnsafeRawBufferPointer(start: buffer, count: allowed))
      }
      throw GzipError(code: .limitExceeded, message: "the decompressed body is larger than the limit of \(limit) bytes")
    }
    totalOut += produced
    try sink(UnsafeRawBufferPointer(start: buffer, count: produced))
  }
}
