/// Kinds compare by case; two ``TransportKind/custom(_:)`` kinds are equal when they hold the same class instance.
extension TransportKind: Equatable {
  /// Whether `lhs` and `rhs` name the same transport: the same case, and for ``TransportKind/custom(_:)`` the same
  /// object (a transport that is a value type equals no other kind, since it has no identity to compare).
  public static func == (lhs: TransportKind, rhs: TransportKind) -> Bool {
    switch (lhs, rhs) {
    #if canImport(MalibuCurl)
    case (.curl, .curl): return true
    #endif
    case (.urlSession, .urlSession): return true
    case (.custom(let left), .custom(let right)):
      guard type(of: left) is AnyClass, type(of: right) is AnyClass else { return false }
      return ObjectIdentifier(left as AnyObject) == ObjectIdentifier(right as AnyObject)
    default: return false
    }
  }
}

/// `curl`, `urlSession`, or `custom(<transport type>)`.
extension TransportKind: CustomStringConvertible {
  /// The case's name; for ``TransportKind/custom(_:)`` with the transport's type: `custom(MockTransport)`.
  public var description: String {
    switch self {
    #if canImport(MalibuCurl)
    case .curl: return "curl"
    #endif
    case .urlSession: return "urlSession"
    case .custom(let transport): return "custom(\(type(of: transport)))"
    }
  }
}
