import Foundation
import Shared
import Testing

/// Ids the decoder would round to an integer are caught from their spelling (found by the chaos
/// suite's fuzzer: `1e-400` was answered as id 0).
@Suite struct RawIDCheckTests {
    @Test(arguments: [
        #"{"jsonrpc":"2.0","id":1.0000000000000000001,"method":"a.b"}"#,
        #"{"id":1e-400}"#, #"{"id":-1e-999999}"#, #"{"id":0.0000000000000000000000000000}"#,
        #"{"id":2E3}"#, #"{ "method" : "x" , "id" : 1.0 }"#, #"{"\u0069d":1.5}"#,
        #"{"params":{"id":1},"id":3.0}"#,
    ])
    func refusesNumbersWithAFractionOrAnExponent(json: String) {
        #expect(!RawIDCheck.idIsIntegerLiteral(in: Data(json.utf8)))
    }

    @Test(arguments: [
        #"{"jsonrpc":"2.0","id":1,"method":"a.b"}"#, #"{"id":-42}"#, #"{"id":"1.5"}"#, #"{"id":null}"#,
        // Only the top-level member counts, and strings are skipped whole, quotes and brackets inside too.
        #"{"params":{"id":1.5,"x":"]}\"id\":2.5"},"id":7}"#, #"{"params":[[{"id":1e9}]],"id":"a"}"#,
        #"{"jsonrpc":"2.0","method":"a.b"}"#, "[1.5]",
    ])
    func acceptsIntegersStringsAndNull(json: String) {
        #expect(RawIDCheck.idIsIntegerLiteral(in: Data(json.utf8)))
    }
}
