import HTTPTypes
import MalibuCore
import Testing

@Suite("Header fields and defaults")
struct HeaderTests {
  @Test func validHeadersBecomeFields() throws {
    let fields = try HTTPFields(validating: ["Accept": "application/json", "X-Token": "  abc\t"])
    #expect(fields[.accept] == "application/json")
    #expect(fields[HTTPField.Name("x-token")!] == "abc")
  }

  static let invalid: [(String, String)] = [
    ("X-Bad", "a\r\nInjected: yes"),
    ("X-Bad", "line\nbreak"),
    ("X-Bad", "carriage\rreturn"),
    ("X-Bad", "nul\u{0}byte"),
    ("Bad Name", "value"),
    ("Bad:Name", "value"),
    ("", "value"),
    ("X-Evil\r\n", "value"),
  ]

  @Test(arguments: invalid)
  func crlfAndBadNamesAreRejected(_ name: String, _ value: String) {
    #expect {
      try HTTPFields(validating: [name: value])
    } throws: { error in
      guard let error = error as? NetworkError else { return false }
      return error.code == .invalidHeader
    }
  }

  /// A line break or NUL is named as such; another control byte is an invalid value; neither message holds the value.
  @Test func eachRefusalSaysWhy() {
    let cases: [(String, String)] = [
      ("token\r\n", "contains CR, LF or NUL"), ("bell\u{7}", "is not a valid field value"),
    ]
    for (value, reason) in cases {
      #expect {
        try HTTPFields(validating: ["X-Secret": value])
      } throws: { error in
        guard let error = error as? NetworkError else { return false }
        return error.code == .invalidHeader && error.message.contains(reason) && !error.message.contains(value)
      }
    }
  }

  /// Spaces and tabs around a value go; a value of nothing else becomes empty; a value without any is kept whole.
  @Test func blanksAroundAValueAreTrimmed() throws {
    let fields = try HTTPFields(validating: ["X-A": " \t ", "X-B": "a b", "X-C": "\tcafé "])
    #expect(fields[HTTPField.Name("X-A")!] == "")
    #expect(fields[HTTPField.Name("X-B")!] == "a b")
    #expect(fields[HTTPField.Name("X-C")!] == "café")
  }

  /// A merge replaces each name in the place of its first field, adds new names at the end in sorted order, and a
  /// refused layer leaves the fields as they were.
  @Test func mergeReplacesInPlaceAndRefusesAWholeLayer() throws {
    var fields: HTTPFields = [.accept: "*/*", .userAgent: "a", .accept: "text/plain", .acceptLanguage: "en"]
    try fields.merge(validating: ["accept": "application/json", "X-B": "b", "X-A": "a"])
    #expect(fields.map(\.name.canonicalName) == ["accept", "user-agent", "accept-language", "x-a", "x-b"])
    #expect(fields[.accept] == "application/json")

    try fields.merge(validating: ["X-Twice": "upper", "x-twice": "lower"])
    #expect(fields[values: HTTPField.Name("X-Twice")!] == ["upper", "lower"])

    let before = fields
    #expect {
      try fields.merge(validating: ["Accept": "text/html", "X-Bad": "a\r\nInjected: yes"])
    } throws: { error in
      (error as? NetworkError)?.code == .invalidHeader
    }
    #expect(fields == before)
  }

  @Test func mergeNamesTheFirstBadFieldInSortedOrderAndKeepsACookieWhole() throws {
    var fields = HTTPFields()
    for capacity in [4, 16, 64, 256] {  // other capacities, other orders of iteration; the same error
      var layer = [String: String](minimumCapacity: capacity)
      for (name, value) in [("X-C", "c"), ("X-D", "bad\rvalue"), ("X-B", "bad\nvalue"), ("X-A", "a")] {
        layer[name] = value
      }
      #expect {
        try fields.merge(validating: layer)
      } throws: { error in
        (error as? NetworkError)?.message == "the value of header 'X-B' contains CR, LF or NUL"
      }
    }
    #expect(fields.isEmpty)

    try fields.merge(validating: ["Cookie": "a=1; b=2", "Accept": "*/*"])
    #expect(fields[values: .cookie] == ["a=1; b=2"])
    #expect(fields.map(\.name.canonicalName) == ["accept", "cookie"])
  }

  /// Layers checked once give the fields that merging them one after the other gives, over any fields below them,
  /// and a bad field in any layer is the same error, leaving the fields below as they were.
  @Test(arguments: [
    [["Accept": "text/html", "X-A": "a"], ["accept": "application/json", "X-B": "b"]],
    [["User-Agent": "Surfer/1", "X-Twice": "upper", "x-twice": "lower"], ["X-Other": "o"]],
    [["Cookie": "a=1; b=2"], ["Cookie": "c=3", "Accept-Language": "fr"]],
    [["X-Z": "z", "X-Y": " y\t"], [:], ["x-z": "second", "Accept-Encoding": "br"]],
    [[:], [:]],
  ])
  func checkedLayersMergeAsTheDictionariesOneAfterTheOther(layers: [[String: String]]) throws {
    let below: HTTPFields = [.accept: "*/*", .acceptEncoding: "gzip", .userAgent: "Malibu", .cookie: "z=0"]
    var oneByOne = below
    for layer in layers {
      try oneByOne.merge(validating: layer)
    }
    var checked = below
    try checked.merge(CheckedHeaderLayers(layers))
    #expect(checked == oneByOne)
    #expect(checked.map(\.name.rawName) == oneByOne.map(\.name.rawName))
  }

  @Test func checkedLayersRefuseWithTheFirstBadFieldsError() throws {
    let layers = [["X-A": "a"], ["X-Bad": "line\nfeed", "X-Also": "nul\u{0}"], ["X-Later": "bad\r"]]
    var oneByOne = HTTPFields()
    var expected: NetworkError?
    do {
      for layer in layers {
        try oneByOne.merge(validating: layer)
      }
    } catch {
      expected = error
    }
    let checked = CheckedHeaderLayers(layers)
    let refusal: NetworkError? = if case .failure(let error) = checked.outcome { error } else { nil }
    #expect(refusal?.message == expected?.message)
    #expect(refusal?.message == "the value of header 'X-Also' contains CR, LF or NUL")
    #expect((try? checked.outcome.get()) == nil)
    var fields: HTTPFields = [.accept: "*/*"]
    #expect {
      try fields.merge(checked)
    } throws: { error in
      (error as? NetworkError)?.code == .invalidHeader
    }
    #expect(fields == [.accept: "*/*"])
  }

  @Test func setValidatingReplaces() throws {
    var fields = HTTPFields()
    try fields.set(validating: "1", for: "X-A")
    try fields.set(validating: "2", for: "x-a")
    #expect(fields[HTTPField.Name("X-A")!] == "2")
    #expect(throws: NetworkError.self) { try fields.set(validating: "a\nb", for: "X-A") }
    #expect(fields[HTTPField.Name("X-A")!] == "2")
  }

  @Test func defaults() {
    let fields = DefaultHeaders.fields
    #expect(fields[.acceptEncoding] == "gzip, deflate")
    #expect(fields[.userAgent]?.hasPrefix("Malibu/\(DefaultHeaders.malibuVersion) (") == true)
    #expect(fields[.acceptLanguage]?.isEmpty == false)
  }

  @Test func acceptLanguageQValues() {
    #expect(DefaultHeaders.acceptLanguage(for: ["en-US", "fr", "de"]) == "en-US, fr;q=0.9, de;q=0.8")
    #expect(DefaultHeaders.acceptLanguage(for: []) == "*")
    #expect(DefaultHeaders.acceptLanguage(for: Array(repeating: "x", count: 10)).split(separator: ",").count == 6)
  }

  @Test func userAgentNamesTheSystem() {
    #if os(Linux)
    #expect(DefaultHeaders.userAgent.contains("(Linux "))
    #endif
  }
}
