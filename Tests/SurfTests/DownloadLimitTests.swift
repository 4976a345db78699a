import Malibu
import Testing

@testable import SurfCore

/// `--max-download-size`: the sizes it takes, the ones it refuses, and the line a download past it ends with.
@Suite struct DownloadLimitTests {
  @Test(arguments: [
    ("1", 1 as Int64), ("1048576", 1_048_576), ("500K", 512_000), ("500k", 512_000), ("10M", 10 << 20),
    ("10MB", 10 << 20), ("2GiB", 2 << 30), ("1T", 1 << 40), (" 3K ", 3072),
  ])
  func sizesParse(_ text: String, _ bytes: Int64) throws {
    #expect(try SurfOptions.byteCount(text) == bytes)
  }

  @Test(arguments: ["", "0", "-1", "1.5M", "M", "KB", "10X", "ten", "1 M", "99999999999999999999", "9000000000G", "١٢"])
  func otherSizesAreRefused(_ text: String) {
    #expect {
      try SurfOptions.byteCount(text)
    } throws: { error in
      (error as? SurfError)?.message.hasPrefix("--max-download-size: '\(text)' is not a size") == true
    }
  }

  @Test func aDownloadPastTheLimitSaysSo() {
    let error = NetworkError(
      code: .transportFailed,
      message: "the download failed",
      underlyingError: DownloadError(
        code: .bodyTooLarge,
        message: "the body went past the download's limit of 1024 bytes"
      )
    )
    let failure = Surf.failure(error)
    #expect(failure.status == .error)
    #expect(failure.message == "download failed (bodyTooLarge): the body went past the download's limit of 1024 bytes")
  }
}
