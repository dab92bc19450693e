import Foundation
@testable import Shared
import Testing

/// The remembered key conversions (`SnakeCaseKeys`) give what Foundation's strategies give, both ways,
/// the first time and every time after.
@Suite struct JSONCodingTests {
    struct Awkward: Codable, Equatable {
        var photoId = 1
        var myUrlProperty = 2
        var _leading = 3
        var trailing_ = 4
        var simple = 8
        var nested: [Awkward]? = nil
        var byName: [String: Int] = ["someKey": 1]
    }

    /// Acronyms and snake_case names do not come back as they went (Foundation's rule too): encoding alone.
    struct Acronym: Encodable {
        var myURLProperty = 1
        var HTTPStatus = 2
        var already_snake = 3
        var a1B2c3 = 4
        var ID = 5
    }

    @Test func acronymsAreSplitAsFoundationSplitsThem() throws {
        let plain = JSONEncoder()
        plain.keyEncodingStrategy = .convertToSnakeCase
        plain.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let ours = try JSONCoding.encoder().encode(Acronym())
        #expect(String(decoding: ours, as: UTF8.self) == String(decoding: try plain.encode(Acronym()), as: UTF8.self))
        #expect(String(decoding: ours, as: UTF8.self) == #"{"a1_b_2c3":4,"already_snake":3,"h_ttp_status":2,"i_d":5,"my_url_property":1}"#)
    }

    @Test func keysAreFoundationsOwnSnakeCaseBothWays() throws {
        let value = Awkward(nested: [Awkward()])
        let plain = JSONEncoder()
        plain.keyEncodingStrategy = .convertToSnakeCase
        plain.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let expected = try plain.encode(value)
        for _ in 0..<2 {
            let ours = try JSONCoding.encoder().encode(value)
            #expect(String(decoding: ours, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
            #expect(try JSONCoding.decoder().decode(Awkward.self, from: ours) == value)
        }
        let plainDecoder = JSONDecoder()
        plainDecoder.keyDecodingStrategy = .convertFromSnakeCase
        #expect(try plainDecoder.decode(Awkward.self, from: expected) == value)
    }
}
