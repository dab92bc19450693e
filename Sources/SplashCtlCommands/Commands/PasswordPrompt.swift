#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import CLIText
import Foundation

/// Reads a password without it ever being in argv or the environment: from the terminal with echo
/// off, or (`--password-stdin`) as the first line of standard input.
enum PasswordPrompt {
    static func read(fromStdin: Bool, prompt: String = Message.passwordPrompt.text()) throws -> String {
        let password: String?
        if fromStdin {
            password = readLine(strippingNewline: true)
        } else {
            password = try readFromTerminal(prompt: prompt)
        }
        guard let password, !password.isEmpty else {
            throw ValidationError((fromStdin ? Message.noPasswordOnStdin : .noPasswordGiven).text())
        }
        return password
    }

    private static func readFromTerminal(prompt: String) throws -> String? {
        let fd = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard fd >= 0 else {
            throw ValidationError(Message.noTerminalForPassword.text())
        }
        defer { close(fd) }
        var original = termios()
        guard tcgetattr(fd, &original) == 0 else { throw ValidationError(Message.cannotReadTerminalSettings.text()) }
        var silent = original
        silent.c_lflag &= ~tcflag_t(ECHO)
        silent.c_lflag |= tcflag_t(ECHONL)
        _ = prompt.withCString { Glibc.write(fd, $0, strlen($0)) }
        guard tcsetattr(fd, TCSAFLUSH, &silent) == 0 else { throw ValidationError(Message.cannotTurnOffEcho.text()) }
        defer { tcsetattr(fd, TCSAFLUSH, &original) }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while Glibc.read(fd, &byte, 1) == 1 {
            if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") { break }
            bytes.append(byte)
            if bytes.count > 4096 { break }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
