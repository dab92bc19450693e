import CLIText
import Foundation
import Shared
import SplashClient
import Support
import Testing
import TestSupport

/// kitty's placeholder and its first row diacritics (the protocol's table; splashctl's own is not
/// imported here, so that a wrong entry there fails this test).
enum KittyPlaceholdersProbe {
    static let placeholder: Unicode.Scalar = "\u{10EEEE}"
    static let rowDiacritics: [UInt32] = [
        0x0305, 0x030D, 0x030E, 0x0310, 0x0312, 0x033D, 0x033E, 0x033F, 0x0346, 0x034A, 0x034B, 0x034C,
        0x0350, 0x0351, 0x0352, 0x0357, 0x035B, 0x0363, 0x0364, 0x0365, 0x0366, 0x0367, 0x0368, 0x0369,
    ]
}

/// Photos drawn for terminals through the daemon (the memory tier and its hit rates are
/// too), against devstack's CDN: the best file here is drawn — a thumbnail fetched when
/// there is none, the library file once liked — and a picture drawn again comes from memory.
@Suite(.serialized, .devstack) struct PictureTests {
    static let terminal = TerminalSpec(mode: .symbols, columns: 40, rows: 10)

    @Test func theBestFileHereIsDrawnAndTheMemoryTierServesItAgain() async throws {
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.sync())
            let photo = try #require(try await daemon.seedCatalogue(count: 1).first)
            #expect(!daemon.hasLoadedLibvips, "libvips is opened at the first picture, not at start")

            let first = try await daemon.send(PhotosPictureRequest(id: photo.id, terminal: Self.terminal))
            #expect(first.from == .fetched && first.text.contains("\u{1B}[38;2;"), "\(first.from)")
            #expect(daemon.hasLoadedLibvips)
            let usage = try await daemon.send(CacheStatusRequest())
            #expect(try await daemon.send(StatusRequest()).library.files == usage.libraryFiles + usage.cacheFiles,
                    "the thumbnail fetched counts at once (\(usage.cacheFiles) in the cache)")
            #expect(first.columns <= 40 && first.rows <= 10 && first.text.split(separator: "\n").count == first.rows)
            let again = try await daemon.send(PhotosPictureRequest(id: photo.id, terminal: Self.terminal))
            #expect(again.from == .cache && again.text == first.text)
            var tiers = try #require(try await daemon.send(CacheStatusRequest()).pictures)
            #expect(tiers.memoryHits == 1 && tiers.memoryMisses == 1 && tiers.diskMisses == 1 && tiers.diskHits == 0, "\(tiers)")
            #expect(tiers.memoryEntries == 1 && tiers.memoryBytes > 0 && tiers.memoryBytes <= tiers.memoryMaxBytes)

            _ = try await daemon.send(PhotosLikeRequest(id: photo.id, allowDuplicate: true))
            _ = try await daemon.waitForLibrary(files: 1)
            let liked = try await daemon.send(PhotosPictureRequest(id: photo.id, terminal: Self.terminal))
            #expect(liked.from == .library && liked.path.hasPrefix(daemon.directory))
            tiers = try #require(try await daemon.send(CacheStatusRequest()).pictures)
            #expect(tiers.memoryMisses == 2 && tiers.diskHits == 1, "the library file is another file: \(tiers)")

            // splashctl: a pipe gets no picture and no escape sequence; a forced mode draws above the details.
            let piped = try await daemon.ctl(["photos", "show", photo.id])
            #expect(piped.status == 0 && !piped.stdout.contains("\u{1B}"), "\(piped.stdout.prefix(80).debugDescription)")
            let forced = try await daemon.ctl(["photos", "show", photo.id, "--image", "symbols"])
            // (ctl runs with --no-color: shapes only, no colour sequence.)
            #expect(forced.status == 0 && !forced.stdout.contains("\u{1B}[38;2;"), "\(forced.stdout.prefix(40).debugDescription)")
            let details = try #require(forced.stdout.range(of: photo.id))
            let above = forced.stdout[..<details.lowerBound].split(separator: "\n")
            #expect(above.count >= 2 && above.allSatisfy { $0.unicodeScalars.contains { $0.value > 0x7F } }, "the picture above the details: \(above)")
            let json = try await daemon.ctl(["photos", "show", photo.id, "--image", "symbols", "--json"])
            #expect(!json.stdout.contains("\\u001b") && !json.stdout.contains("\u{1B}"), "nothing drawn under --json")
        }
    }

    /// A large photo: its library file gets a screen copy in the cache once it
    /// arrives, downloaded or imported, and pictures are drawn from the copy — unless the picture needs
    /// more pixels than it has. A large file drawn without one gets one for the next time.
    @Test func aLargePhotoIsDrawnFromItsScreenCopy() async throws {
        try await SplashdFixture.run { fixture in
            // devstack's full variant: 2400 pixels on the longer side, 3.8 MP or more.
            let daemon = try await fixture.splashd(.sync(config: "[images]\nvariant = \"full\"\n"))
            let devstack = try #require(daemon.devstack)
            let photos = try await daemon.seedCatalogue(count: 2)
            @Sendable func screenCopy(_ id: String) async throws -> PhotoFileInfo? {
                try await daemon.send(PhotosShowRequest(id: id)).files.first { $0.variant == "screen" && $0.present }
            }
            _ = try await daemon.send(PhotosLikeRequest(id: photos[0].id, allowDuplicate: true))
            _ = try await daemon.waitForLibrary(files: 1)
            try await daemon.wait(for: "the screen copy of \(photos[0].id)") { try await screenCopy(photos[0].id) != nil }
            let copy = try #require(try await screenCopy(photos[0].id))
            #expect(copy.location == .cache && copy.path.hasSuffix(".screen.jpg"), "\(copy)")
            // Its hash kept with it: the gallery's ETag, not a file read again for every answer.
            #expect(copy.checksum == (try FileDigest.sha256Hex(path: copy.path)))
            let drawn = try await daemon.send(PhotosPictureRequest(id: photos[0].id, terminal: Self.terminal))
            #expect(drawn.from == .screen && drawn.path == copy.path, "\(drawn.from) \(drawn.path)")
            // 2000 pixels wide: wider than the copy (its picture is small, kept so: the payload is JSON).
            let wide = TerminalSpec(mode: .kitty, columns: 200, rows: 12, cellWidth: 10, cellHeight: 20)
            #expect(try await daemon.send(PhotosPictureRequest(id: photos[0].id, terminal: wide)).from == .library)

            let folder = daemon.directory + "/Pictures"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let full = photos[1].url.replacingOccurrences(of: "&w=1080&fit=max", with: "")
            try Data(try await devstack.cdnBytes(full)).write(to: URL(fileURLWithPath: folder + "/large.jpg"))
            let imported = try #require(try await daemon.send(LibraryImportRequest(path: folder)).imported.first)
            try await daemon.wait(for: "the imported photo's screen copy") { try await screenCopy(imported.id) != nil }
            #expect(try await daemon.send(PhotosPictureRequest(id: imported.id, terminal: Self.terminal)).from == .screen)

            // The copy gone behind the daemon's back: drawn from the file, which asks for a copy again.
            let gone = try #require(try await screenCopy(imported.id))
            try FileManager.default.removeItem(atPath: gone.path)
            #expect(try await daemon.send(PhotosPictureRequest(id: imported.id, terminal: Self.terminal)).from == .library)
            try await daemon.wait(for: "the screen copy made again") { try await screenCopy(imported.id) != nil }
            #expect(try await daemon.send(PhotosPictureRequest(id: imported.id, terminal: Self.terminal)).from == .screen)
        }
    }

    /// `pictures.terminal` decides for a mode splashctl only detected, never for one asked for; `none`
    /// draws nothing, and `photos show` prints the details alone.
    @Test func theConfiguredModeDecidesOnlyForADetectedOne() async throws {
        try await SplashdFixture.run { fixture in
            let kitty = try await fixture.splashd(.sync(config: "[pictures]\nterminal = \"kitty\"\n"))
            let photo = try #require(try await kitty.seedCatalogue(count: 1).first)
            var detected = Self.terminal
            detected.detected = true
            #expect(try await kitty.send(PhotosPictureRequest(id: photo.id, terminal: detected)).text.hasPrefix("\u{1B}_G"))
            let asked = try await kitty.send(PhotosPictureRequest(id: photo.id, terminal: Self.terminal))
            #expect(!asked.text.hasPrefix("\u{1B}_G") && asked.text.contains("\u{1B}[38;2;"), "symbols, as asked")

            let none = try await fixture.splashd(.sync(config: "[pictures]\nterminal = \"none\"\n"))
            let other = try #require(try await none.seedCatalogue(count: 1).first)
            let nothing = try await none.send(PhotosPictureRequest(id: other.id, terminal: detected))
            #expect(nothing.from == .notDrawn && nothing.text.isEmpty && nothing.columns == 0)
            #expect(try await none.send(CacheStatusRequest()).cacheFiles == 0, "no thumbnail fetched for nothing")
            #expect(try await none.send(PhotosPictureRequest(id: other.id, terminal: Self.terminal)).from == .fetched, "asked for: drawn")
        }
    }

    /// The image host unreachable (every connection reset): a photo drawn before still draws from the
    /// cache; one with nothing here, or whose file went missing behind the daemon's back, gives the
    /// details with one line saying why there is no picture.
    @Test func withTheHostUnreachableCachedPicturesStillDraw() async throws {
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.sync())
            let devstack = try #require(daemon.devstack)
            let photos = try await daemon.seedCatalogue(count: 3)
            #expect(try await daemon.send(PhotosPictureRequest(id: photos[0].id, terminal: Self.terminal)).from == .fetched)
            #expect(try await daemon.send(PhotosPictureRequest(id: photos[1].id, terminal: Self.terminal)).from == .fetched)
            try await devstack.faults(#"[{"path": "/cdn/*", "action": "reset", "times": 1000}]"#)
            fixture.onCleanup { try? await devstack.clearFaults() }

            let cached = try await daemon.send(PhotosPictureRequest(id: photos[0].id, terminal: Self.terminal))
            #expect(cached.from == .cache && cached.text.contains("\u{1B}[38;2;"))
            let shown = try await daemon.ctl(["photos", "show", photos[0].id, "--image", "symbols"])
            #expect(shown.status == 0 && !shown.stdout.hasPrefix("(no picture") && shown.stdout.contains(photos[0].id))

            let never = try await daemon.ctl(["photos", "show", photos[2].id, "--image", "symbols"])
            #expect(never.status == 0 && never.stdout.hasPrefix("(no picture: ") && never.stdout.contains(photos[2].id), "\(never.stdout)")

            let file = try #require(try await daemon.send(PhotosShowRequest(id: photos[1].id)).files.first { $0.present })
            try FileManager.default.removeItem(atPath: file.path)
            let missing = try await daemon.ctl(["photos", "show", photos[1].id, "--image", "symbols"])
            #expect(missing.status == 0 && missing.stdout.hasPrefix("(no picture: ") && missing.stdout.contains(photos[1].id), "\(missing.stdout)")
        }
    }

    /// A damaged file: the picture says why, and `photos show` still prints the details, with one line
    /// saying why there is no picture.
    @Test func aDamagedFileGivesTheDetailsAndOneLineSayingWhy() async throws {
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.sync())
            let photo = try #require(try await daemon.seedCatalogue(count: 1).first)
            _ = try await daemon.send(PhotosLikeRequest(id: photo.id, allowDuplicate: true))
            _ = try await daemon.waitForLibrary(files: 1)
            let file = try #require(try await daemon.send(PhotosShowRequest(id: photo.id)).files.first { $0.location == .library })
            try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: file.path))
            await #expect { try await daemon.send(PhotosPictureRequest(id: photo.id, terminal: Self.terminal)) } throws: { error in
                let error = error as? RPCError
                return error?.kind == .invalidInput && error?.message.contains(file.path) == true
            }
            let shown = try await daemon.ctl(["photos", "show", photo.id, "--image", "symbols"])
            #expect(shown.status == 0 && shown.stdout.hasPrefix("(no picture: ") && shown.stdout.contains(photo.id), "\(shown.stdout)")
        }
    }

    /// A thumbnail host that answers an HTML page: the picture says so, and nothing enters the cache.
    @Test func aThumbnailHostAnsweringHTMLGivesNoPictureAndNoFile() async throws {
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.sync())
            let devstack = try #require(daemon.devstack)
            let photo = try #require(try await daemon.seedCatalogue(count: 1).first)
            try await devstack.faults("""
                [{"path": "/cdn/unsplash/photo-\(photo.remoteId)", "status": 200, "content_type": "text/html",
                  "body": "<!DOCTYPE html><html><body>Sign in to the Wi-Fi</body></html>"}]
                """)
            fixture.onCleanup { try? await devstack.clearFaults() }
            await #expect { try await daemon.send(PhotosPictureRequest(id: photo.id, terminal: Self.terminal)) } throws: { error in
                (error as? RPCError)?.message.contains("not a JPEG") == true
            }
            #expect(try await daemon.send(CacheStatusRequest()).cacheFiles == 0)
        }
    }

    /// `search --grid`: one request draws the page; each id sits under its picture. A photo that cannot
    /// be drawn is listed with the reason.
    @Test func aPageOfResultsIsAContactSheet() async throws {
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.sync())
            let page = try await daemon.send(PhotosSearchRequest(query: "lake", perPage: 6))
            #expect(page.photos.count >= 2)
            let run = try await daemon.ctl(["search", "lake", "--per-page", "6", "--grid", "--image", "symbols"])
            #expect(run.status == 0, "\(run.stderr)")
            let lines = run.stdout.split(separator: "\n").map(String.init)
            for photo in page.photos {
                let idLine = try #require(lines.firstIndex { $0.contains(photo.id) }, "\(photo.id) on the sheet")
                #expect(idLine >= 1 && lines[idLine - 1].unicodeScalars.contains { $0.value > 0x7F }, "a picture above \(photo.id)")
            }
            #expect(!run.stdout.contains("\u{1B}"), "--no-color: shapes only")

            let store = try daemon.seedPhotos(1, prefix: "nopicture")
            let answer = try await daemon.send(PhotosPicturesRequest(ids: [page.photos[0].id] + store, terminal: Self.terminal))
            #expect(answer.pictures.map(\.id) == [page.photos[0].id] && answer.missing.map(\.id) == store, "\(answer.missing)")
        }
    }

    /// A tmux server of the test's own, for splashctl in a real terminal.
    struct Tmux: Sendable {
        let server = "splashd-test-\(UUID().uuidString.prefix(8))"

        @discardableResult
        func run(_ arguments: [String]) async throws -> String {
            let result = try await ChildProcess.run(
                "/usr/bin/tmux", ["-L", server, "-f", "/dev/null"] + arguments,
                environment: ["PATH": "/usr/bin:/bin", "TERM": "xterm-256color", "LANG": "C.UTF-8"], stdin: "", timeout: .seconds(20))
            return result.stdout
        }

        /// Runs `command` in an 80 × 24 pane once `go` is signalled (after `allow-passthrough` is set on
        /// globally, as a tmux.conf does, if asked), and reads the pane (from the start of its history)
        /// once the command has printed DONE.
        func screen(of command: String, environment: [String: String], daemon: Splashd, passthrough: Bool = false) async throws -> String {
            let pane = "/usr/bin/tmux -L \(server) wait-for go; \(command); echo DONE; sleep 30"
            try await run(["new-session", "-d", "-x", "80", "-y", "24"] + environment.flatMap { ["-e", "\($0.key)=\($0.value)"] } + [pane])
            if passthrough { try await run(["set", "-g", "allow-passthrough", "on"]) }
            try await run(["wait-for", "-S", "go"])
            var screen = ""
            try await daemon.wait(for: "splashctl's output in the pane") {
                screen = try await run(["capture-pane", "-p", "-S", "-"])
                return screen.contains("DONE")
            }
            return screen
        }
    }

    /// `splashctl photos show ID` in an 80 × 24 pane of a tmux server of the test's own: the pane's text.
    static func photosShowInTmux(
        _ id: String, daemon: Splashd, fixture: SplashdFixture, environment: [String: String], passthrough: Bool = false
    ) async throws -> String {
        let tmux = Tmux()
        fixture.onCleanup { _ = try? await tmux.run(["kill-server"]) }
        return try await tmux.screen(
            of: "\(DaemonProcess.splashctlPath) --socket \(daemon.process.socketPath) photos show \(id)", environment: environment,
            daemon: daemon, passthrough: passthrough)
    }

    /// splashctl in a real terminal: tmux, an 80 × 24 pane, the screen read back with capture-pane. The
    /// first screen holds the picture and every line of the details under it; no address or path.
    @Test func inTmuxThePicturesBlocksStandAboveThePhotosTitle() async throws {
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.sync())
            let photo = try #require(try await daemon.seedCatalogue(count: 1).first)
            let screen = try await Self.photosShowInTmux(photo.id, daemon: daemon, fixture: fixture, environment: ["COLORTERM": "truecolor"])
            let lines = screen.split(separator: "\n", omittingEmptySubsequences: false)
            let title = try #require(lines.firstIndex { $0.contains(photo.id) }, "\(screen)")
            let blocks = lines[..<title].filter { $0.unicodeScalars.contains { (0x2580...0x259F).contains($0.value) } }
            #expect(blocks.count >= 3, "the picture's block rows above the title:\n\(screen)")
            #expect(screen.contains(Message.notLiked.text(.english)), "the details' last line on the first screen:\n\(screen)")
            #expect(!screen.contains("http://") && !screen.contains("https://") && !screen.contains("/data/"), "\(screen)")
        }
    }

    /// The second scalar (the row diacritic) of each line that starts with kitty's placeholder, above
    /// the line that names `id`.
    static func placeholderRows(above id: String, in screen: String) -> [UInt32] {
        var named: [UInt32] = []
        for line in screen.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.contains(id) { return named }
            let scalars = Array(line.unicodeScalars)
            if scalars.first == KittyPlaceholdersProbe.placeholder { named.append(scalars.count >= 2 ? scalars[1].value : 0) }
        }
        return []
    }

    /// kitty's images inside tmux (`KITTY_WINDOW_ID` kept in the pane, `allow-passthrough` on, set
    /// globally as a tmux.conf does): the image goes through to kitty, and the pane holds the picture as
    /// rows of placeholders, each row's first cell naming its row.
    @Test func kittyInsideTmuxDrawsUnicodePlaceholders() async throws {
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.sync())
            let photo = try #require(try await daemon.seedCatalogue(count: 1).first)
            let screen = try await Self.photosShowInTmux(
                photo.id, daemon: daemon, fixture: fixture, environment: ["KITTY_WINDOW_ID": "1", "COLORTERM": "truecolor"], passthrough: true)
            let named = Self.placeholderRows(above: photo.id, in: screen)
            #expect(named.count >= 3 && named.count <= KittyPlaceholdersProbe.rowDiacritics.count, "placeholder rows above the title:\n\(screen)")
            #expect(named == Array(KittyPlaceholdersProbe.rowDiacritics.prefix(named.count)), "each row names itself: \(named)")
            #expect(!screen.contains("\u{2580}") && !screen.contains("\u{2584}"), "no symbols: the image went to kitty")
        }
    }

    /// `edit ID --filter … --preview` with no file: the original and the filtered preview side by side,
    /// each captioned; nothing is saved.
    @Test func aPreviewWithNoFileDrawsTheOriginalBesideTheFilteredOne() async throws {
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.sync())
            let photo = try #require(try await daemon.seedCatalogue(count: 1).first)
            let run = try await daemon.ctl(["edit", photo.id, "--filter", "invert", "--preview"])
            #expect(run.status == 0, "\(run.stderr)")
            let lines = run.stdout.split(separator: "\n").map(String.init)
            let captions = try #require(lines.lastIndex { $0.contains("original") && $0.contains("filtered") }, "\(run.stdout)")
            #expect(captions >= 2 && lines[..<captions].allSatisfy { $0.unicodeScalars.contains { $0.value > 0x7F } }, "pictures above the captions")
            // The two halves differ: the filtered one is inverted.
            let half = ContactSheetHalves(lines[0])
            #expect(half.left != half.right)
            #expect(try await daemon.send(EditsListRequest()).edits.isEmpty, "a preview saves nothing")
        }
    }
}

/// A line of two side-by-side pictures cut at its middle.
struct ContactSheetHalves {
    var left: Substring
    var right: Substring
    init(_ line: String) {
        let middle = line.index(line.startIndex, offsetBy: line.count / 2)
        left = line[..<middle]
        right = line[middle...]
    }
}
