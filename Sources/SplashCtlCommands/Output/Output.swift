import Foundation
import Shared

/// Where splashctl's text goes: results on stdout, errors on stderr, one write per call, through
/// the command environment's output.
enum Output {
    static func line(_ text: String) {
        write(Data((text.hasSuffix("\n") ? text : text + "\n").utf8), to: .output)
    }

    static func error(_ text: String) {
        write(Data("splashctl: \(text)\n".utf8), to: .error)
    }

    /// Text on stderr as it is (a prompt, a progress bar).
    static func prompt(_ text: String) {
        write(Data(text.utf8), to: .error)
    }

    static func json(_ value: some Encodable) {
        let data = (try? JSONCoding.encoder().encode(value)) ?? Data("null".utf8)
        write(data + Data("\n".utf8), to: .output)
    }

    static func errorJSON(_ error: RPCError) {
        let data = (try? JSONCoding.encoder().encode(error)) ?? Data()
        write(data + Data("\n".utf8), to: .error)
    }

    static func isTerminal(_ stream: StandardStream) -> Bool {
        CommandEnvironment.current.output.isTerminal(stream)
    }

    private static func write(_ data: Data, to stream: StandardStream) {
        CommandEnvironment.current.output.write(data, to: stream)
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
