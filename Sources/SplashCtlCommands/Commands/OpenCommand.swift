import ArgumentParser
import CLIText
import Foundation
import Shared

/// `splashctl open`: the web gallery in the person's browser, through a one-time address the daemon
/// gives only on its control socket.
struct OpenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open", abstract: HelpText.openAbstract.text(), discussion: HelpText.openDiscussion.text())
    @OptionGroup var global: GlobalOptions
    @Flag(help: .text(.openPrint)) var print = false
    @Flag(name: .customLong("revoke-all"), help: .text(.openRevokeAll)) var revokeAll = false

    func run() async throws {
        if revokeAll {
            try await global.run(WebRevokeRequest()) { _, _ in Message.gallerySessionsEnded.text() }
            return
        }
        try await global.run(WebOpenRequest()) { result, _ in
            if print { return result.url }
            let environment = ProcessInfo.processInfo.environment
            if let page = Self.redirectPage(to: result.url, environment: environment), Browser.open(page, environment: environment) {
                return Message.galleryOpening.text()
            }
            return Message.openThisAddressForTheGallery(url: result.url).text()
        }
    }

    /// A page of the person's own (0600, in their runtime directory) that sends the browser on to
    /// `url`: what the browser is started with, so the token is on no command line another user of
    /// the machine could read (as Jupyter opens its own). Its `file://` address; nil when it cannot
    /// be written.
    static func redirectPage(to url: String, environment: [String: String]) -> String? {
        let directory = environment["XDG_RUNTIME_DIR"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? NSTemporaryDirectory()
        let path = (directory as NSString).appendingPathComponent("splashd-open-\(getuid()).html")
        let page = """
            <!doctype html><meta charset="utf-8"><meta name="referrer" content="no-referrer">
            <meta http-equiv="refresh" content="0;url=\(url)"><title>splashd</title><a href="\(url)">splashd</a>
            """
        unlink(path)
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        let bytes = Array(page.utf8)
        guard write(fd, bytes, bytes.count) == bytes.count else { return nil }
        return URL(fileURLWithPath: path).absoluteString
    }
}
