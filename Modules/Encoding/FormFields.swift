import MalibuCore

/// Form fields as unescaped `(name, value)` pairs, in MalibuCore's `FormURLEncoding` order and key scheme.
enum FormFields {
  static func pairs(
    from parameters: Parameters,
    rules: FormURLEncoding
  ) throws(NetworkError) -> [(name: String, value: String)] {
    rules.fields(from: try ParameterValue.normalize(parameters))
  }
}
