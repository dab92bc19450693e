import Foundation

/// Looks at how a request's `id` was written, which a decoded number hides: Foundation's decoder reads
/// `1.0000000000000000001` as 1 and `1e-400` as 0, so such a request would be answered under an id
/// its sender never used (and a pipelining client would match the answer to another request). JSON-RPC
/// discourages fractional ids; splashd refuses every number written with a fraction or an exponent.
public enum RawIDCheck {
    /// False when a top-level `id` member of the object in `line` is a number with a fraction or an
    /// exponent. `line` must be valid JSON (it has already been decoded once); anything else is true.
    public static func idIsIntegerLiteral(in line: Data) -> Bool {
        let bytes = [UInt8](line)
        var scanner = Scanner(bytes: bytes)
        scanner.skipWhitespace()
        guard scanner.take(UInt8(ascii: "{")) else { return true }
        while true {
            scanner.skipWhitespace()
            guard let keyRange = scanner.string() else { return true }
            scanner.skipWhitespace()
            guard scanner.take(UInt8(ascii: ":")) else { return true }
            scanner.skipWhitespace()
            let valueStart = scanner.index
            scanner.skipValue()
            if Self.isID(bytes[keyRange]) {
                let token = bytes[valueStart..<scanner.index]
                if let first = token.first, first == UInt8(ascii: "-") || (48...57).contains(first),
                   token.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) {
                    return false
                }
            }
            scanner.skipWhitespace()
            guard scanner.take(UInt8(ascii: ",")) else { return true }
        }
    }

    /// The key's raw bytes, quotes included; an escaped spelling (`"\u0069d"`) decodes first.
    private static func isID(_ raw: ArraySlice<UInt8>) -> Bool {
        if !raw.contains(UInt8(ascii: "\\")) { return raw.elementsEqual(#""id""#.utf8) }
        return (try? JSONDecoder().decode(String.self, from: Data(raw))) == "id"
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        mutating func skipWhitespace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        /// A string starting here, its range including the quotes; nil when none starts here.
        mutating func string() -> Range<Int>? {
            let start = index
            guard take(UInt8(ascii: "\"")) else { return nil }
            while index < bytes.count {
                let byte = bytes[index]
                index += byte == UInt8(ascii: "\\") ? 2 : 1
                if byte == UInt8(ascii: "\"") { return start..<index }
            }
            return start..<index
        }

        /// Past one value of any kind; containers by counting brackets outside strings (no recursion,
        /// so any depth is safe).
        mutating func skipValue() {
            guard index < bytes.count else { return }
            switch bytes[index] {
            case UInt8(ascii: "\""):
                _ = string()
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                repeat {
                    switch bytes[index] {
                    case UInt8(ascii: "\""): _ = string(); continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
                    default: break
                    }
                    index += 1
                } while depth > 0 && index < bytes.count
            default:
                while index < bytes.count, !",}] \t\r\n".utf8.contains(bytes[index]) { index += 1 }
            }
        }
    }
}
