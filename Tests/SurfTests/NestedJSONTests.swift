import Foundation
import MalibuCore
import SurfCore
import Testing

/// Nested JSON items side by side with HTTPie 3's documentation ("Nested JSON", docs/README.md of httpie/cli): each
/// case is a documented command's items and the body HTTPie documents for them (`http --offline --print=B pie.dev/post
/// ITEMS`), and the errors are HTTPie's messages as its docs and its test suite (tests/test_json.py) print them.
@Suite struct NestedJSONTests {
  static func body(_ items: [String]) throws -> ParameterValue {
    let spec = try RequestSpec(line: RequestLine(parsing: ["pie.dev/post"] + items))
    guard case .json(let value) = spec.body else {
      Issue.record("not a JSON body: \(spec.body)")
      return .null
    }
    return value
  }

  static func json(_ text: String) throws -> ParameterValue {
    try JSONDecoder().decode(ParameterValue.self, from: Data(text.utf8))
  }

  /// (the documented items, the documented body)
  static let documented: [([String], String)] = [
    // The section's opening example.
    (
      [
        "platform[name]=HTTPie", "platform[about][mission]=Make APIs simple and intuitive",
        "platform[about][homepage]=httpie.io", "platform[about][homepage]=httpie.io", "platform[about][stars]:=54000",
        "platform[apps][]=Terminal", "platform[apps][]=Desktop", "platform[apps][]=Web", "platform[apps][]=Mobile",
      ],
      """
      {"platform": {"name": "HTTPie", "about": {"mission": "Make APIs simple and intuitive", "homepage": "httpie.io",
      "stars": 54000}, "apps": ["Terminal", "Desktop", "Web", "Mobile"]}}
      """
    ),
    // Introduction.
    (
      ["category=tools", "search[type]=id", "search[id]:=1"],
      #"{"category": "tools", "search": {"id": 1, "type": "id"}}"#
    ),
    (
      ["category=tools", "search[type]=keyword", "search[keywords][]=APIs", "search[keywords][]=CLI"],
      #"{"category": "tools", "search": {"keywords": ["APIs", "CLI"], "type": "keyword"}}"#
    ),
    // The docs print ["CLIs", "API"] here, a typo: index 0 is "CLI", index 1 "APIs", as HTTPie sends.
    (
      ["category=tools", "search[type]=keyword", "search[keywords][1]=APIs", "search[keywords][0]=CLI"],
      #"{"category": "tools", "search": {"keywords": ["CLI", "APIs"], "type": "keyword"}}"#
    ),
    (
      [
        "category=tools", "search[type]=platforms", "search[platforms][]=Terminal", "search[platforms][1]=Desktop",
        "search[platforms][3]=Mobile",
      ],
      #"{"category": "tools", "search": {"platforms": ["Terminal", "Desktop", null, "Mobile"], "type": "platforms"}}"#
    ),
    (
      [
        "category=tools", "search[type]=platforms", #"search[platforms]:=["Terminal", "Desktop"]"#,
        "search[platforms][]=Web", "search[platforms][]=Mobile",
      ],
      #"{"category": "tools", "search": {"platforms": ["Terminal", "Desktop", "Web", "Mobile"], "type": "platforms"}}"#
    ),
    // Top level arrays.
    (["[]:=1", "[]:=2", "[]:=3"], "[1, 2, 3]"),
    (
      ["[0][type]=platform", "[0][name]=terminal", "[1][type]=platform", "[1][name]=desktop"],
      #"[{"type": "platform", "name": "terminal"}, {"type": "platform", "name": "desktop"}]"#
    ),
    // Escaping behavior.
    ([#"foo\[bar\]:=1"#, #"baz[\[]:=2"#, #"baz[\]]:=3"#], #"{"baz": {"[": 2, "]": 3}, "foo[bar]": 1}"#),
    ([#"backslash[\\]:=1"#], #"{"backslash": {"\\": 1}}"#),
    (
      [#"object[\1]=stringified"#, #"object[\100]=same"#, "array[1]=indexified"],
      #"{"array": [null, "indexified"], "object": {"1": "stringified", "100": "same"}}"#
    ),
    // Type safety does not apply to value overrides.
    (["user[name]:=411", "user[name]=string"], #"{"user": {"name": "string"}}"#),
    // The issue's three.
    (["a[b]=c"], #"{"a": {"b": "c"}}"#),
    (["a[]:=1"], #"{"a": [1]}"#),
    (["a[b][c]:=true"], #"{"a": {"b": {"c": true}}}"#),
    (["a[0]=x"], #"{"a": ["x"]}"#),
    // Plain names are as before.
    (["title=Balsa", "count:=3"], #"{"title": "Balsa", "count": 3}"#),
  ]

  @Test(arguments: documented)
  func buildsTheDocumentedBody(_ items: [String], _ expected: String) throws {
    #expect(try Self.body(items) == (try Self.json(expected)))
  }

  /// (items, HTTPie's error as printed). HTTPie's docs print the type error as "Can't perform …"; HTTPie 3.2.4 prints
  /// "Cannot perform …" (httpie/cli/nested_json/interpret.py and tests/test_json.py), which is what surf copies.
  static let errors: [([String], String)] = [
    // Guiding syntax errors (docs).
    (["foo[bar]=OK", "foo[baz][quux=FAIL"], "HTTPie Syntax Error: Expecting ']'\nfoo[baz][quux\n             ^"),
    // Type safety (docs, with 3.2.4's wording).
    (
      ["array[]:=1", "array[]:=2", "array[key]:=3"],
      "HTTPie Type Error: Cannot perform 'key' based access on 'array' which has a type of 'array' but this "
        + "operation requires a type of 'object'.\narray[key]\n     ^^^^^"
    ),
    // The issue's clash.
    (
      ["a=1", "a[b]=2"],
      "HTTPie Type Error: Cannot perform 'key' based access on 'a' which has a type of 'string' but this "
        + "operation requires a type of 'object'.\na[b]\n ^^^"
    ),
    // tests/test_json.py.
    (["foo[bar][1]][]:=2"], "HTTPie Syntax Error: Expecting '['\nfoo[bar][1]][]\n           ^"),
    (["foo[bar][1]something[]:=2"], "HTTPie Syntax Error: Expecting '['\nfoo[bar][1]something[]\n           ^^^^^^^^^"),
    (["foo[bar][1][142241[]:=2"], "HTTPie Syntax Error: Expecting ']'\nfoo[bar][1][142241[]\n                  ^"),
    ([#"foo[bar][1]\[142241[]:=2"#], "HTTPie Syntax Error: Expecting '['\nfoo[bar][1]\\[142241[]\n           ^^^^^^^^"),
    (
      ["foo=1", "foo[key]:=2"],
      "HTTPie Type Error: Cannot perform 'key' based access on 'foo' which has a type of 'string' but this "
        + "operation requires a type of 'object'.\nfoo[key]\n   ^^^^^"
    ),
    (
      ["foo=1", "foo[0]:=2"],
      "HTTPie Type Error: Cannot perform 'index' based access on 'foo' which has a type of 'string' but this "
        + "operation requires a type of 'array'.\nfoo[0]\n   ^^^"
    ),
    (
      ["foo=1", "foo[]:=2"],
      "HTTPie Type Error: Cannot perform 'append' based access on 'foo' which has a type of 'string' but this "
        + "operation requires a type of 'array'.\nfoo[]\n   ^^"
    ),
    (
      ["data[key]=value", "data[key 2]=value 2", "data[0]=value"],
      "HTTPie Type Error: Cannot perform 'index' based access on 'data' which has a type of 'object' but this "
        + "operation requires a type of 'array'.\ndata[0]\n    ^^^"
    ),
  ]

  @Test(arguments: errors)
  func failsWithHTTPiesError(_ items: [String], _ expected: String) {
    #expect {
      _ = try Self.body(items)
    } throws: { error in
      guard let error = error as? SurfError else { return false }
      return "HTTPie " + error.message == expected && error.status == .error
    }
  }

  @Test func aNegativeIndexIsRefused() {
    #expect {
      _ = try Self.body(["a[-1]=x"])
    } throws: { error in
      (error as? SurfError)?.message == "Value Error: Negative indexes are not supported.\na[-1]\n  ^^"
    }
  }

  @Test func formsKeepTheNameAsTyped() throws {
    let spec = try RequestSpec(line: RequestLine(parsing: ["pie.dev/post", "a[b]=c"]), style: .form)
    guard case .form(let fields) = spec.body else {
      Issue.record("not a form: \(spec.body)")
      return
    }
    #expect(fields.map(\.name) == ["a[b]"])
  }
}
