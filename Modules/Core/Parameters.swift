/// Request parameters: string keys to values of the supported kinds.
///
/// Supported values: `Bool`, every integer type (within `Int`'s range), `Double`, `Float` and `Decimal`, `String`,
/// `Substring` and `Character`, `URL`, `UUID`, `Date` and `Data`, `nil` and `NSNull`, arrays and `String`-keyed
/// dictionaries of supported values, ``ParameterValue``, and any `Encodable` value. Everything else is
/// rejected with a ``NetworkError`` of code ``NetworkError/Code/unsupportedParameter``; see ``ParameterValue``
/// for the exact rules.
public typealias Parameters = [String: any Sendable]
