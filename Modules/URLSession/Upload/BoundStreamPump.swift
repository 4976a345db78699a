import Foundation
import MalibuCore

#if !canImport(FoundationNetworking)
/// The `InputStream` URLSession reads a streamed request body from on Apple platforms: one end of a bound stream
/// pair, whose other end a dedicated thread fills from the body's source.
///
/// CFNetwork reads body streams on its own thread and does not support `InputStream` subclasses, so the pump writes
/// into the pair's output stream, whose blocking writes pace the source to the network.
enum BoundStreamPump {
  /// A new input stream fed from `source`; a failure of the source goes to `onError` and ends the body early.
  static func makeStream(
    source: any ChunkSource,
    onError: @escaping @Sendable (any Error) -> Void
  ) -> InputStream {
    var input: InputStream?
    var output: OutputStream?
    Stream.getBoundStreams(withBufferSize: 256 * 1024, inputStream: &input, outputStream: &output)
    guard let input, let output else {
      onError(CocoaError(.fileReadUnknown))
      return InputStream(data: Data())
    }
    let pump = Pump(source: source, output: output, onError: onError)
    let thread = Thread { pump.run() }
    thread.name = "MalibuURLSession.upload"
    thread.start()
    return input
  }

  // Owned by the pump thread alone once started; the unchecked conformance only lets the thread's closure take it.
  private final class Pump: @unchecked Sendable {
    private let source: any ChunkSource
    private let output: OutputStream
    private let onError: @Sendable (any Error) -> Void

    init(source: any ChunkSource, output: OutputStream, onError: @escaping @Sendable (any Error) -> Void) {
      self.source = source
      self.output = output
      self.onError = onError
    }

    func run() {
      output.open()
      defer { output.close() }
      var buffer = [UInt8](repeating: 0, count: 64 * 1024)
      do {
        while true {
          let count = try buffer.withUnsafeMutableBytes { try source.read(into: $0) }
          if count == 0 { return }
          var written = 0
          while written < count {
            let result = buffer.withUnsafeBufferPointer {
              output.write($0.baseAddress! + written, maxLength: count - written)
            }
            if result <= 0 { return }  // The reading side went away: the transfer ended.
            written += result
          }
        }
      } catch {
        onError(error)
      }
    }
  }
}
#endif
