public import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The process's standard streams: whether each is a terminal, the terminal's width, and writing to them.
public struct Console: Sendable {
  /// Whether standard input is a terminal (then it is never read as a body).
  public var inputIsTerminal: Bool
  /// Whether standard output is a terminal (colours, formatting and heads by default).
  public var outputIsTerminal: Bool
  /// Whether standard error is a terminal (progress bars only then).
  public var errorIsTerminal: Bool

  /// The streams of this process.
  public static var standard: Console {
    Console(inputIsTerminal: isatty(0) == 1, outputIsTerminal: isatty(1) == 1, errorIsTerminal: isatty(2) == 1)
  }

  /// Creates a console.
  /// - Parameters:
  ///   - inputIsTerminal: Whether standard input is a terminal.
  ///   - outputIsTerminal: Whether standard output is a terminal.
  ///   - errorIsTerminal: Whether standard error is a terminal.
  public init(inputIsTerminal: Bool, outputIsTerminal: Bool, errorIsTerminal: Bool) {
    self.inputIsTerminal = inputIsTerminal
    self.outputIsTerminal = outputIsTerminal
    self.errorIsTerminal = errorIsTerminal
  }

  /// The width of the terminal on standard error, 80 when it cannot be told.
  public var width: Int {
    var size = winsize()
    guard ioctl(2, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
    return Int(size.ws_col)
  }

  /// Writes bytes to standard output.
  /// - Parameter data: The bytes.
  public func output(_ data: Data) {
    FileHandle.standardOutput.write(data)
  }

  /// Writes text to standard output.
  /// - Parameter text: The text.
  public func output(_ text: String) {
    output(Data(text.utf8))
  }

  /// Writes text to standard error.
  /// - Parameter text: The text.
  public func error(_ text: String) {
    FileHandle.standardError.write(Data(text.utf8))
  }

  /// Reads standard input to its end.
  /// - Returns: The bytes.
  public func readInput() -> Data {
    FileHandle.standardInput.readDataToEndOfFile()
  }
}
