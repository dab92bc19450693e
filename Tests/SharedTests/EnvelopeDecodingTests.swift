import Foundation
import Shared
import Testing

@Suite struct EnvelopeDecodingTests {
    func head(_ json: String) throws -> RequestHead {
        try JSONCoding.decoder().decode(RequestHead.self, from: Data(json.utf8))
    }

    @Test func readsIDsOfEveryAllowedKind() throws {
        #expect(try head(#"{"jsonrpc":"2.0","id":5,"method":"a.b"}"#).id == .number(5))
        #expect(try head(#"{"jsonrpc":"2.0","id":"x","method":"a.b"}"#).id == .string("x"))
        let null = try head(#"{"jsonrpc":"2.0","id":null,"method":"a.b"}"#)
        #expect(null.id == nil && null.hasID && !null.idIsInvalid)
        let notification = try head(#"{"jsonrpc":"2.0","method":"a.b"}"#)
        #expect(!notification.hasID)
    }

    @Test(arguments: [#"{"id":1.5}"#, #"{"id":true}"#, #"{"id":{}}"#, #"{"id":[1]}"#])
    func flagsInvalidIDs(json: String) throws {
        #expect(try head(json).idIsInvalid)
    }

    @Test func toleratesWrongTypesInTheHeadSoTheyCanBeReported() throws {
        let h = try head(#"{"jsonrpc":2,"id":1,"method":7}"#)
        #expect(h.jsonrpc == nil && h.method == nil && h.id == .number(1))
    }

    @Test func rpcIDRoundTrips() throws {
        for id in [RPCID.number(-3), .number(Int64.max), .string(""), .string("é\"")] {
            let data = try JSONCoding.encoder().encode(id)
            #expect(try JSONCoding.decoder().decode(RPCID.self, from: data) == id)
        }
    }

    @Test func jsonValueKeepsIntegersAndDoublesApart() throws {
        let value = try JSONCoding.decoder().decode(JSONValue.self, from: Data(#"{"a":1,"b":1.5,"c":[true,null,"s"]}"#.utf8))
        #expect(value == .object(["a": .integer(1), "b": .double(1.5), "c": .array([.bool(true), .null, .string("s")])]))
    }

    /// Every kind, where another could be mistaken for it: booleans are not numbers, numeric strings
    /// stay strings, 1.0 is the integer it equals (as before the kinds were tried in another order).
    @Test func jsonValueReadsEveryKindAsItself() throws {
        let text = #"[true,false,0,1,-7,1.0,2.5,1e3,"1","true","",null,{},[],{"k":[{"n":null}]},9223372036854775807]"#
        for decoder in [JSONCoding.decoder(), JSONDecoder()] {
            let value = try decoder.decode(JSONValue.self, from: Data(text.utf8))
            #expect(value == .array([
                .bool(true), .bool(false), .integer(0), .integer(1), .integer(-7), .integer(1), .double(2.5), .integer(1000),
                .string("1"), .string("true"), .string(""), .null, .object([:]), .array([]),
                .object(["k": .array([.object(["n": .null])])]), .integer(Int64.max),
            ]))
        }
    }
}
