import Foundation
import Shared

/// A success response put together from a result already in JSON, byte for byte what
/// `JSONCoding.encoder()` makes of `ResponseEnvelope(id:result:)`: its keys sorted (`id`, `jsonrpc`,
/// `result`), no spaces. The tests hold the two side by side for every kind of id.
enum ResponseLine {
    static func success(id: RPCID?, resultJSON: Data) throws -> Data {
        var line = Data()
        line.reserveCapacity(resultJSON.count + 48)
        line.append(contentsOf: #"{"id":"#.utf8)
        switch id {
        case nil: line.append(contentsOf: "null".utf8)
        case .number(let value): line.append(contentsOf: String(value).utf8)
        case .string(let value):
            // Escaping a string is the encoder's business.
            line.append(try JSONCoding.encoder().encode(value))
        }
        line.append(contentsOf: #","jsonrpc":"2.0","result":"#.utf8)
        line.append(resultJSON)
        line.append(UInt8(ascii: "}"))
        return line
    }
}
