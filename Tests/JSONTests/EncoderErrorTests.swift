import Foundation
import Testing

@testable import MalibuJSON

/// Arrays nested `depth` deep (or objects, under key "k").
struct DeepNest: Encodable {
  let depth: Int
  let objects: Bool
  var leaf: [Int] = []

  func encode(to encoder: any Encoder) throws {
    if objects {
      var container = encoder.container(keyedBy: DictionaryKey.self)
      if depth > 1 {
        try container.encode(DeepNest(depth: depth - 1, objects: true, leaf: leaf), forKey: DictionaryKey("k"))
      }
    } else {
      var container = encoder.unkeyedContainer()
      if depth > 1 {
        try container.encode(DeepNest(depth: depth - 1, objects: false, leaf: leaf))
      } else if !leaf.isEmpty {
        try container.encode(leaf)
      }
    }
  }
}

struct Thrower: Encodable {
  struct Failure: Error, CustomStringConvertible {
    var description: String { "thrown by the value" }
  }

  func encode(to encoder: any Encoder) throws { throw Failure() }
}

/// Encodes `value` under `key` in a keyed container: for error paths.
struct OneKey<Value: Encodable>: Encodable {
  let key: String
  let value: Value

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: DictionaryKey.self)
    try container.encode(value, forKey: DictionaryKey(key))
  }
}

/// Encodes a float in every kind of container, as the single value of a value under key "v".
struct FloatIn: Encodable {
  let value: Double
  let place: Int

  enum Keys: String, CodingKey { case outer, inner }

  func encode(to encoder: any Encoder) throws {
    switch place {
    case 0:
      var container = encoder.singleValueContainer()
      try container.encode(value)
    case 1:
      var container = encoder.container(keyedBy: Keys.self)
      try container.encode(Float(value), forKey: .inner)
    case 2:
      var container = encoder.unkeyedContainer()
      try container.encode(1)
      try container.encode(value)
    case 3:
      var container = encoder.container(keyedBy: Keys.self)
      var nested = container.nestedContainer(keyedBy: Keys.self, forKey: .outer)
      try nested.encode(value, forKey: .inner)
    case 4:
      var container = encoder.container(keyedBy: Keys.self)
      var nested = container.nestedUnkeyedContainer(forKey: .outer)
      try nested.encode(Float(value))
    case 5:
      var container = encoder.container(keyedBy: Keys.self)
      var nested = container.nestedUnkeyedContainer(forKey: .outer)
      try nested.encode([value])
    case 6:
      var container = encoder.container(keyedBy: Keys.self)
      var nested = container.nestedContainer(keyedBy: Keys.self, forKey: .outer)
      try nested.encode(OneKey(key: "deep", value: [value]), forKey: .inner)
    default:
      var container = encoder.container(keyedBy: Keys.self)
      try writeSuper(container.superEncoder(forKey: .outer))
    }
  }

  private func writeSuper(_ encoder: any Encoder) throws {
    var container = encoder.unkeyedContainer()
    try container.encode(value)
  }
}

@Suite struct EncoderErrorTests {
  @Test(arguments: [Double.nan, .infinity, -.infinity])
  func nonConformingFloatsThrowWithFoundationsPath(value: Double) {
    expectSameAsFoundation(value, MalibuJSONEncoder())
    expectSameAsFoundation(Float(value), MalibuJSONEncoder())
    expectSameAsFoundation([value], MalibuJSONEncoder())
    expectSameAsFoundation([1, value], MalibuJSONEncoder())
    expectSameAsFoundation([Float(value)], MalibuJSONEncoder())
    expectSameAsFoundation(["a": ["b": value]], MalibuJSONEncoder())
    expectSameAsFoundation(["a": [[value]]], MalibuJSONEncoder())
    expectSameAsFoundation([[1.0], [2.0, value]], MalibuJSONEncoder())
    expectSameAsFoundation([1: [value]], MalibuJSONEncoder())
    for place in 0..<8 {
      expectSameAsFoundation(FloatIn(value: value, place: place), MalibuJSONEncoder(), "place \(place)")
      expectSameAsFoundation(OneKey(key: "v", value: [FloatIn(value: value, place: place)]), MalibuJSONEncoder())
    }
    var snake = MalibuJSONEncoder()
    snake.keyEncodingStrategy = .convertToSnakeCase
    // Foundation leaves a [String: V] key out of the paths below it under a key strategy.
    expectSameAsFoundation(OneKey(key: "outerKey", value: ["innerKey": value]), snake)
    expectSameAsFoundation(OneKey(key: "outerKey", value: ["innerKey": ["x": [value]]]), snake)
    expectSameAsFoundation(["innerKey": FloatIn(value: value, place: 3)], snake)
    var dates = MalibuJSONEncoder()
    for strategy in [MalibuJSONEncoder.DateEncodingStrategy.secondsSince1970, .millisecondsSince1970] {
      dates.dateEncodingStrategy = strategy
      expectSameAsFoundation(OneKey(key: "when", value: [Date(timeIntervalSince1970: value)]), dates)
      expectSameAsFoundation(Date(timeIntervalSince1970: value), dates)
    }
    dates.dateEncodingStrategy = .deferredToDate
    expectSameAsFoundation(OneKey(key: "when", value: Date(timeIntervalSinceReferenceDate: value)), dates)
  }

  @Test func topLevelValueThatEncodesNothing() {
    expectSameAsFoundation(EncodesNothing(), MalibuJSONEncoder())
    expectSameAsFoundation(Wrapper(inner: EncodesNothing()), MalibuJSONEncoder())
  }

  @Test func errorsThrownByValuesPassThrough() {
    expectSameAsFoundation(Thrower(), MalibuJSONEncoder())
    expectSameAsFoundation(["a": [Thrower()]], MalibuJSONEncoder())
    #expect(throws: Thrower.Failure.self) { try MalibuJSONEncoder().encode([Thrower()]) }
  }

  @Test(arguments: [false, true])
  func nestingDeeperThanFoundationAllows(objects: Bool) {
    for pretty in [false, true] {
      var encoder = MalibuJSONEncoder()
      if pretty { encoder.outputFormatting = .prettyPrinted }
      for depth in [510, 511, 512, 600] {
        expectSameAsFoundation(DeepNest(depth: depth, objects: objects), encoder, "depth \(depth)")
      }
      expectSameAsFoundation(DeepNest(depth: 511, objects: false, leaf: [1]), encoder, "leaf")
      expectSameAsFoundation(DeepNest(depth: 510, objects: false, leaf: [1]), encoder, "leaf")
    }
  }

  @Test func secondValueInASingleValueContainerIsAnError() {
    struct Twice: Encodable {
      func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(1)
        try container.encode(2)
      }
    }
    // Foundation traps on this; MalibuJSON throws.
    #expect {
      try MalibuJSONEncoder().encode(Twice())
    } throws: { error in
      guard case EncodingError.invalidValue(_, let context) = error else { return false }
      return context.codingPath.isEmpty && context.debugDescription.contains("single value container")
    }
  }

  @Test func keyedContainerAfterAScalarIsAnError() {
    struct ScalarThenKeyed: Encodable {
      func encode(to encoder: any Encoder) throws {
        var single = encoder.singleValueContainer()
        try single.encode(1)
        var container = encoder.container(keyedBy: DictionaryKey.self)
        try container.encode(2, forKey: DictionaryKey("a"))
      }
    }
    // Foundation traps on this; MalibuJSON throws.
    #expect {
      try MalibuJSONEncoder().encode(["x": ScalarThenKeyed()])
    } throws: { error in
      guard case EncodingError.invalidValue(_, let context) = error else { return false }
      return context.debugDescription.contains("keyed encoding container")
    }
  }
}
