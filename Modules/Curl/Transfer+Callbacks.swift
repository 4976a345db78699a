import CCurl
import MalibuTransport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension Transfer {
  /// libcurl wants request body bytes (read callback).
  func send(into buffer: UnsafeMutableRawBufferPointer) -> Int {
    guard let upload else { return 0 }
    do {
      let read = try upload.read(into: buffer)
      machine.uploadRead(read)
      switch read {
      case .bytes(let count): return count
      case .end: return 0
      case .wait: return CCurl_READFUNC_PAUSE
      }
    } catch {
      machine.refuse(
        (error as? TransportError)
          ?? TransportError(
            code: .invalidRequest,
            message: "the request body could not be read: \(error)",
            underlyingError: error
          )
      )
      return CCurl_READFUNC_ABORT
    }
  }

  /// libcurl is about to send the hop's request on the connection at `primaryIP` (its pre-request callback): a pooled
  /// connection the connection policy refuses ends the hop before anything is sent on it; the second send in one
  /// hop, after a connection died, is refused for a method that is not idempotent
  /// (``StateMachine/sendingRequest(method:)``).
  func sendingRequest(to primaryIP: UnsafePointer<CChar>?) -> Int32 {
    if let refusal = refusalOfConnection(to: primaryIP) {
      machine.refuse(refusal)
      return CCurl_PREREQFUNC_ABORT
    }
    return machine.sendingRequest(method: request.method) == .proceed ? CCurl_PREREQFUNC_OK : CCurl_PREREQFUNC_ABORT
  }

  /// libcurl must send the body again from the start (a connection that died before the response, say).
  func rewind(offset: curl_off_t, origin: Int32) -> Int32 {
    guard offset == 0, origin == SEEK_SET, let body, body.isRepeatable else { return CCurl_SEEKFUNC_CANTSEEK }
    do {
      upload = try makeUploadSource()
      return CCurl_SEEKFUNC_OK
    } catch {
      machine.refuse(error)
      return CCurl_SEEKFUNC_FAIL
    }
  }

  /// libcurl's progress callback: reports to the caller's handler when something changed, never backwards.
  func progressed(downloadTotal: curl_off_t, downloaded: curl_off_t, uploadTotal: curl_off_t, uploaded: curl_off_t) {
    guard let handler = job.options.progress else { return }
    let last = lastProgress
    let knownUploadTotal = compressing ? nil : body?.length.map { Int64($0) }
    let progress = TransferProgress(
      uploaded: max(last?.uploaded ?? 0, Int64(uploaded)),
      uploadTotal: knownUploadTotal ?? (uploadTotal > 0 ? Int64(uploadTotal) : last?.uploadTotal),
      downloaded: max(last?.downloaded ?? 0, Int64(downloaded)),
      downloadTotal: downloadTotal > 0 ? Int64(downloadTotal) : last?.downloadTotal
    )
    guard progress != last else { return }
    lastProgress = progress
    handler(progress)
  }
}
