import CFuzzer
import Foundation

/// The fuzz targets by name: each takes one input and traps (`fatalError`, `precondition`) when an invariant breaks.
let targets: [String: @Sendable (UnsafeRawBufferPointer) -> Void] = [
  "gzip": GzipTarget.run,
  "json": JSONTarget.run,
  "json-codable": JSONCodableTarget.run,
  "response-head": ResponseHeadTarget.run,
  "media-type": MediaTypeTarget.run,
  "url-form": URLFormTarget.run,
  "multipart": MultipartTarget.run,
  "stored-request": StoredRequestTarget.run,
  "redactor": RedactorTarget.run,
  "cassette": CassetteTarget.run,
]

/// The target named by MALIBU_FUZZ_TARGET, looked up once.
let selectedTarget: @Sendable (UnsafeRawBufferPointer) -> Void = {
  let names = targets.keys.sorted().joined(separator: ", ")
  guard let name = ProcessInfo.processInfo.environment["MALIBU_FUZZ_TARGET"] else {
    FileHandle.standardError.write(Data("malibu-fuzz: set MALIBU_FUZZ_TARGET to one of: \(names)\n".utf8))
    exit(2)
  }
  guard let target = targets[name] else {
    FileHandle.standardError.write(Data("malibu-fuzz: unknown target '\(name)'; one of: \(names)\n".utf8))
    exit(2)
  }
  return target
}()

/// libFuzzer's entry point: one input per call.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
  selectedTarget(UnsafeRawBufferPointer(start: start, count: count))
  return 0
}

/// The program: libFuzzer's driver with ``fuzz(_:_:)`` as the target. SwiftPM links an executable's entry point as
/// `main` (so that tests could link the module), which keeps libFuzzer's own `main` out of the binary.
@main
enum MalibuFuzz {
  static func main() {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    let status = LLVMFuzzerRunDriver(&argc, &argv) { data, size in
      guard let data else { return fuzz(UnsafeRawPointer(bitPattern: 1)!, 0) }
      return fuzz(UnsafeRawPointer(data), size)
    }
    exit(status)
  }
}
