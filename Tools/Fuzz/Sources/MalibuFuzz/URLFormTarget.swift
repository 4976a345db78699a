import Foundation
import MalibuCore
import MalibuEncoding

/// URL building and form encoding: a form body or query decodes back to exactly the fields it was made from, in
/// every array and boolean style; a built URL carries the encoded query; nothing traps on any resource or base.
enum URLFormTarget {
  static let arrayStyles: [FormURLEncoding.ArrayStyle] = [.brackets, .noBrackets, .indexInBrackets]

  static func run(_ bytes: UnsafeRawBufferPointer) {
    var input = FuzzInput(bytes)
    let rules = FormURLEncoding(arrayStyle: arrayStyles[input.choice(3)], boolStyle: input.bool() ? .literal : .numeric)
    let resource = input.shortString()
    let base = input.shortString()
    var parameters: Parameters = [:]
    for _ in 0..<input.choice(4) { parameters[input.shortString()] = value(&input, depth: 0) }

    let normalized: [String: ParameterValue]
    do {
      normalized = try ParameterValue.normalize(parameters)
    } catch {
      precondition(error.code == .unsupportedParameter, "normalizing failed with \(error.code)")
      return
    }
    let query = rules.queryString(from: normalized)
    let fields = rules.fields(from: normalized)
    let decoded = decode(query)
    precondition(decoded.count == fields.count, "the query has \(decoded.count) fields, not \(fields.count)")
    for (field, back) in zip(fields, decoded) {
      precondition(field.name == back.name && field.value == back.value, "a field did not survive the query")
    }
    let body = try? FormURLEncoder(rules: rules).encode(parameters: parameters)
    precondition(body == (parameters.isEmpty ? nil : Data(query.utf8)), "the form body is not the query string")

    let request = Request.get(resource, parameters: parameters)
    if let url = try? request.buildURL(baseUrl: base.isEmpty ? nil : base, queryEncoding: rules), !query.isEmpty {
      precondition(
        url.absoluteString.contains(query),
        "the built URL \(url.absoluteString) lost the encoded query \(query)"
      )
    }
  }

  /// `name=value` pairs split at `&` and `=` and percent-decoded.
  private static func decode(_ query: String) -> [(name: String, value: String)] {
    guard !query.isEmpty else { return [] }
    return query.split(separator: "&", omittingEmptySubsequences: false).map { pair in
      let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      precondition(parts.count == 2, "a field without '='")
      guard let name = parts[0].removingPercentEncoding, let value = parts[1].removingPercentEncoding else {
        fatalError("an escape that does not decode")
      }
      return (name, value)
    }
  }

  /// A parameter value of any kind the normalizer meets, nested at most three deep.
  private static func value(_ input: inout FuzzInput, depth: Int) -> any Sendable {
    switch input.choice(depth < 3 ? 10 : 8) {
    case 0: return input.shortString()
    case 1: return Int(Int8(bitPattern: input.byte())) << Int(input.choice(64))
    case 2: return Double(bitPattern: input.data(count: 8).reduce(0) { $0 << 8 | UInt64($1) })
    case 3: return input.bool()
    case 4: return String?.none as any Sendable
    case 5: return UInt64.max - UInt64(input.byte())
    case 6: return input.shortData()
    case 7: return ParameterValue.string(input.shortString())
    case 8: return (0..<input.choice(4)).map { _ in value(&input, depth: depth + 1) }
    default:
      var object: [String: any Sendable] = [:]
      for _ in 0..<input.choice(4) { object[input.shortString()] = value(&input, depth: depth + 1) }
      return object
    }
  }
}
