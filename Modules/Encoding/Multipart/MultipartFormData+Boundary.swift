extension MultipartFormData {
  /// A fresh random boundary: `Boundary-` followed by 32 letters and digits drawn from
  /// `SystemRandomNumberGenerator`.
  ///
  /// ```swift
  /// MultipartFormData.randomBoundary()   // "Boundary-3fKq0ZrW…"
  /// ```
  /// - Returns: The boundary.
  public static func randomBoundary() -> String {
    var generator = SystemRandomNumberGenerator()
    var boundary = "Boundary-"
    for _ in 0..<32 {
      boundary.unicodeScalars.append(alphanumerics[Int.random(in: 0..<alphanumerics.count, using: &generator)])
    }
    return boundary
  }

  private static let alphanumerics = Array(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".unicodeScalars
  )

  /// Why a boundary breaks RFC 2046 §5.1.1, or `nil` when it is fine.
  static func problem(withBoundary boundary: String) -> String? {
    let scalars = Array(boundary.unicodeScalars)
    guard (1...70).contains(scalars.count) else { return "must have 1 to 70 characters" }
    guard scalars.allSatisfy(isBoundaryCharacter) else {
      return "may only contain letters, digits, space and '()+_,-./:=?"
    }
    guard scalars.last != " " else { return "must not end with a space" }
    return nil
  }

  /// The boundary as a header parameter value: as is when it is an RFC 9110 token, quoted otherwise.
  static func parameterValue(_ boundary: String) -> String {
    let isToken = boundary.unicodeScalars.allSatisfy { scalar in
      isBoundaryCharacter(scalar) && !" (),/:=?".unicodeScalars.contains(scalar)
    }
    return isToken ? boundary : "\"\(boundary)\""
  }

  private static func isBoundaryCharacter(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar {
    case "a"..."z", "A"..."Z", "0"..."9": return true
    default: return "'()+_,-./:=? ".unicodeScalars.contains(scalar)
    }
  }
}
