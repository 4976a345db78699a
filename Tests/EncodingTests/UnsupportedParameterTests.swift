import Foundation
import MalibuCore
import MalibuEncoding
import Testing

/// A class that is neither a supported value nor `Encodable`.
private final class Opaque: Sendable {}

@Suite struct UnsupportedParameterTests {
  enum Encoder: String, CaseIterable, Sendable {
    case form, json, multipart

    func encode(_ parameters: Parameters) throws {
      switch self {
      case .form: _ = try FormURLEncoder().encode(parameters: parameters)
      case .json: _ = try JSONParameterEncoder().encode(parameters: parameters)
      case .multipart:
        _ = try MultipartFormEncoder().encodeBody(parameters: parameters, contentType: .multipartFormData)
      }
    }
  }

  static let cases: [(label: String, parameters: Parameters, keyPath: String)] = [
    ("a Set", ["tags": Set([1, 2])], "'tags'"),
    ("a Set in a dictionary", ["board": ["tags": Set(["a"])] as [String: any Sendable]], "'board[tags]'"),
    ("a non-Encodable class", ["a": ["b": Opaque()] as [String: any Sendable]], "'a[b]'"),
    ("an Int beyond range", ["list": [["n": 1], ["n": UInt64.max]] as [[String: any Sendable]]], "'list[1][n]'"),
    ("non-String keys", ["dict": [1: "x"]], "'dict'"),
    ("a non-finite number", ["x": [1.0, Double.nan]], "'x[1]'"),
  ]

  @Test(arguments: cases, Encoder.allCases)
  func unsupportedValuesAreErrorsNamingTheKeyPath(
    testCase: (label: String, parameters: Parameters, keyPath: String),
    encoder: Encoder
  ) {
    let error = networkError { try encoder.encode(testCase.parameters) }
    #expect(error?.code == .unsupportedParameter, "\(testCase.label) with \(encoder)")
    #expect(error?.message.contains(testCase.keyPath) == true, "\(testCase.label): \(error?.message ?? "")")
  }

  @Test func queryStringsRejectThemToo() {
    let error = networkError { _ = try FormURLEncoder().queryString(from: ["s": Set([1])]) }
    #expect(error?.code == .unsupportedParameter)
  }
}
