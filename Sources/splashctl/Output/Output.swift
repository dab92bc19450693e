#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Shared

/// Where splashctl's text goes. Results on stdout, errors on stderr, one write per call.
enum Output {
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8))
    }

    static func error(_ text: String) {
        FileHandle.standardError.write(Data("splashctl: \(text)\n".utf8))
    }

    static func json(_ value: some Encodable) {
        let encoder = JSONCoding.encoder()
        let data = (try? encoder.encode(value)) ?? Data("null".utf8)
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }

    static func errorJSON(_ error: RPCError) {
        let data = (try? JSONCoding.encoder().encode(error)) ?? Data()
        FileHandle.standardError.write(data + Data("\n".utf8))
    }
}

/// Colour only on a terminal and never with NO_COLOR or --no-color.
struct TerminalStyle {
    var color: Bool

    func bold(_ text: String) -> String { color ? "\u{1B}[1m\(text)\u{1B}[0m" : text }
    func dim(_ text: String) -> String { color ? "\u{1B}[2m\(text)\u{1B}[0m" : text }
    func green(_ text: String) -> String { color ? "\u{1B}[32m\(text)\u{1B}[0m" : text }
    func yellow(_ text: String) -> String { color ? "\u{1B}[33m\(text)\u{1B}[0m" : text }
    func red(_ text: String) -> String { color ? "\u{1B}[31m\(text)\u{1B}[0m" : text }
}
