import CLIText
import Foundation

/// Opens an address in the person's browser: `$BROWSER` when set (the Unix convention; also how the
/// tests put a scripted browser in), else `xdg-open` when there is a display to open it on. Not waited
/// for: a browser may well stay open.
enum Browser {
    /// Sends the person to `url` for a sign-in: opened in their browser (nil back: the daemon's
    /// listener waits for it), or, with `noBrowser` or nothing to open it with, printed, and the address
    /// the browser ended on read back from stdin.
    static func send(to url: String, noBrowser: Bool) -> String? {
        if !noBrowser, open(url, environment: ProcessInfo.processInfo.environment) {
            Output.prompt(Message.signingInInBrowser(url: url).text() + "\n")
            return nil
        }
        Output.prompt(Message.openThisAddressToSignIn(url: url).text() + "\n" + Message.pasteTheAddressTheBrowserEndedOn.text())
        return readLine() ?? ""
    }

    /// Whether a browser was started.
    static func open(_ url: String, environment: [String: String]) -> Bool {
        let command: (path: String, arguments: [String])
        if let browser = environment["BROWSER"], !browser.isEmpty {
            // `$BROWSER` may hold several commands separated by colons; the first is tried.
            let first = browser.split(separator: ":").first.map(String.init) ?? browser
            command = ("/bin/sh", ["-c", first + " \"$1\"", "browser", url])
        } else if environment["DISPLAY"] != nil || environment["WAYLAND_DISPLAY"] != nil,
                  FileManager.default.isExecutableFile(atPath: "/usr/bin/xdg-open") {
            command = ("/usr/bin/xdg-open", [url])
        } else {
            return false
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command.path)
        process.arguments = command.arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        return (try? process.run()) != nil
    }
}
