#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Library
import Shared
import SplashClient
import Testing
import TestSupport

/// The library in the person's own picture viewers: `~/Pictures/Splash` (the test
/// daemon's HOME is its directory) holds `My Collection/` and `Edits/`, one hard link per liked photo's
/// file and per edit, kept in step as likes, unlikes, edits and removals happen, mended after a kill -9,
/// and checked and rebuilt by `splashctl library export`.
@Suite(.serialized, .devstack) struct PicturesFolderTests {
    static func folder(_ daemon: Splashd) -> String { daemon.directory + "/Pictures/Splash" }

    /// The names in one part of the folder (nil: the part does not exist).
    static func names(_ daemon: Splashd, _ part: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder(daemon) + "/" + part)) ?? []).sorted()
    }

    /// Device and inode of `path`, not following a link.
    static func inode(_ path: String) -> (dev: UInt64, ino: UInt64, isLink: Bool)? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return (UInt64(info.st_dev), UInt64(info.st_ino), (info.st_mode & S_IFMT) == S_IFLNK)
    }

    /// The entry of `part` ending in `suffix`, with its inode, read together: an entry renamed between
    /// the two reads (its photo's title or author completed by a pull) is looked for again.
    static func entry(
        _ daemon: Splashd, _ part: String, endingIn suffix: String
    ) async -> (name: String, inode: (dev: UInt64, ino: UInt64, isLink: Bool))? {
        await eventually(tries: 100, every: .milliseconds(50)) { () -> (name: String, inode: (dev: UInt64, ino: UInt64, isLink: Bool))? in
            guard let name = names(daemon, part).first(where: { $0.hasSuffix(suffix) }),
                  let node = inode(folder(daemon) + "/" + part + "/" + name) else { return nil }
            return (name, node)
        } until: { $0 != nil }
    }

    /// The library file `photos.show` names for a photo (of the liked variant, not an edit).
    static func libraryFile(_ daemon: Splashd, _ id: String) async throws -> String? {
        try await daemon.send(PhotosShowRequest(id: id)).files.first { $0.present && $0.location == .library && !$0.variant.hasPrefix("edit:") }?.path
    }

    /// Waits until splashd's entries in the part are exactly one per suffix (`(<id>).jpg`).
    static func waitFor(_ daemon: Splashd, _ part: String, endingIn suffixes: [String], _ what: String) async throws {
        try await daemon.wait(for: what) {
            let ours = names(daemon, part).filter { PicturesFolder.isOurs($0, in: PicturesFolder.Part(rawValue: part) ?? .collection) }
            return ours.count == suffixes.count && suffixes.allSatisfy { suffix in ours.contains { $0.hasSuffix(suffix) } }
        }
    }

    @Test func theFolderFollowsALikeAnUnlikeAnEditAndARemoval() async throws {
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.sync())
            let photos = try await daemon.seedCatalogue(count: 2)
            let (first, second) = (photos[0], photos[1])
            // A person's own files in the folder, one named almost like an entry: never touched.
            try FileManager.default.createDirectory(atPath: Self.folder(daemon) + "/My Collection", withIntermediateDirectories: true)
            let own = Self.folder(daemon) + "/My Collection/holiday (2).jpg"
            let notes = Self.folder(daemon) + "/notes.txt"
            try Data("mine".utf8).write(to: URL(fileURLWithPath: own))
            try Data("mine".utf8).write(to: URL(fileURLWithPath: notes))

            // A like: the photo's library file appears in My Collection as a hard link to it.
            _ = try await daemon.send(PhotosLikeRequest(id: first.id))
            _ = try await daemon.waitForLibrary(files: 1)
            try await Self.waitFor(daemon, "My Collection", endingIn: ["(\(first.id)).jpg"], "the liked photo in My Collection")
            let (name, entry) = try #require(await Self.entry(daemon, "My Collection", endingIn: "(\(first.id)).jpg"))
            #expect(name.hasPrefix("Ana – "), "author – title (id): \(name)")
            let file = try #require(try await Self.libraryFile(daemon, first.id))
            let library = try #require(Self.inode(file))
            #expect(!entry.isLink && entry.dev == library.dev && entry.ino == library.ino, "a hard link to \(file), not a copy")

            // An edit: its rendering in Edits; a second like beside the first.
            let edit = try await daemon.send(EditsCreateRequest(id: first.id, filters: [FilterStep(filter: "sepia", params: [0.8])]))
            try await Self.waitFor(daemon, "Edits", endingIn: ["(\(edit.editId)).jpg"], "the edit in Edits")
            let rendered = try #require(try await daemon.send(PhotosShowRequest(id: first.id)).files.first { $0.variant == "edit:\(edit.editId)" })
            let editEntry = try #require(await Self.entry(daemon, "Edits", endingIn: "(\(edit.editId)).jpg"))
            #expect(editEntry.inode.ino == Self.inode(rendered.path)?.ino)
            _ = try await daemon.send(PhotosLikeRequest(id: second.id))
            try await Self.waitFor(
                daemon, "My Collection", endingIn: ["(\(first.id)).jpg", "(\(second.id)).jpg"], "both liked photos in My Collection")

            // An unlike: its entry goes (the photo's edit keeps its own); a removed edit: gone from Edits.
            _ = try await daemon.send(PhotosUnlikeRequest(id: first.id))
            try await Self.waitFor(daemon, "My Collection", endingIn: ["(\(second.id)).jpg"], "the unliked photo gone")
            _ = try await daemon.send(EditsDeleteRequest(editId: edit.editId))
            try await Self.waitFor(daemon, "Edits", endingIn: [], "the removed edit gone")

            #expect(FileManager.default.fileExists(atPath: own) && FileManager.default.fileExists(atPath: notes), "the person's files stay")
            let check = try await daemon.ctl(["library", "export", "--check"])
            #expect(check.status == 0, "\(check)")
        }
    }

    /// A kill -9 after a like and before its link (crash point pictures.linking): the next start makes it.
    @Test func aLinkACrashCutShortIsMadeAtTheNextStart() async throws {
        try await SplashdFixture.run { fixture in
            let crashing = try await fixture.splashd(.sync(environment: ["SPLASHD_TEST_CRASH_AT": "pictures.linking"]))
            let photo = try #require(try await crashing.seedCatalogue(count: 1).first)
            _ = try await crashing.send(PhotosLikeRequest(id: photo.id))
            // The file arrives, the folder's reconcile reaches the point and the daemon dies there.
            #expect(await crashing.process.waitForExit(timeout: .seconds(30)) != nil)
            #expect(crashing.process.stderr.contains("crash point pictures.linking"))
            #expect(Self.names(crashing, "My Collection").isEmpty, "killed before the link")

            let daemon = try await fixture.splashd(.sync(directory: crashing.directory, email: crashing.account))
            try await Self.waitFor(daemon, "My Collection", endingIn: ["(\(photo.id)).jpg"], "the link made at the start")
            let file = try #require(try await Self.libraryFile(daemon, photo.id))
            // The entry may be renamed meanwhile (the photo's title or author completed by a pull): each
            // look reads the name it has now.
            try await daemon.wait(for: "the entry a hard link to the library file") {
                guard let name = Self.names(daemon, "My Collection").first else { return false }
                return Self.inode(Self.folder(daemon) + "/My Collection/" + name)?.ino == Self.inode(file)?.ino
            }
            // Made by the reconcile every start begins with, not by some later event.
            let made = daemon.process.stderr.split(separator: "\n").filter { $0.contains(" made, ") && !$0.contains("folder: 0 made") }
            #expect(made.first?.contains("splashd_trigger=start") == true, "\(made)")
        }
    }

    /// `library export --check` reports an entry removed by hand (status 1) and one put there in the
    /// pattern of splashd's names; `library export` puts back the one and removes the other, exactly.
    /// The guest's like, with no account server: any later event (a push, the live channel's echo of
    /// the like) would set the service reconciling, and it would mend the folder before the check saw it.
    @Test func exportCheckReportsARemovedEntryAndTheRebuildRestoresIt() async throws {
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.init(backend: false, sources: true))
            let photo = try #require(try await daemon.seedCatalogue(count: 1).first)
            _ = try await daemon.send(PhotosLikeRequest(id: photo.id))
            try await Self.waitFor(daemon, "My Collection", endingIn: ["(\(photo.id)).jpg"], "the liked photo in My Collection")
            _ = try await daemon.waitForUsage { $0.downloading == 0 && $0.waiting == 0 }
            try await daemon.wait(for: "the folder to have followed the arrival") {
                try await daemon.send(LibraryExportRequest(check: true)).following == false
            }
            let name = try #require(Self.names(daemon, "My Collection").first)
            let entry = Self.folder(daemon) + "/My Collection/" + name
            let before = try #require(Self.inode(entry))
            #expect(unlink(entry) == 0)
            let stray = Self.folder(daemon) + "/My Collection/Someone (unsplash:not-liked).jpg"
            try Data("x".utf8).write(to: URL(fileURLWithPath: stray))

            let check = try await daemon.ctl(["library", "export", "--check"])
            #expect(check.status == 1, "out of step: \(check)")
            #expect(!check.stdout.contains("catches up"), "nothing left to follow: \(check.stdout)")
            #expect(check.stdout.contains("missing  My Collection/\(name)"), "\(check.stdout)")
            #expect(check.stdout.contains("extra    My Collection/Someone (unsplash:not-liked).jpg"), "\(check.stdout)")
            #expect(Self.inode(entry) == nil, "--check changes nothing")

            let rebuild = try await daemon.ctl(["library", "export"])
            #expect(rebuild.status == 0, "\(rebuild)")
            #expect(Self.inode(entry)?.ino == before.ino, "the same file again")
            #expect(!FileManager.default.fileExists(atPath: stray))
            let again = try await daemon.send(LibraryExportRequest(check: true))
            #expect(again.inStep && again.entries == 1, "\(again)")
            let idempotent = try await daemon.send(LibraryExportRequest())
            #expect(idempotent.made == 0 && idempotent.removed == 0 && idempotent.inStep, "\(idempotent)")
        }
    }

    /// `pictures.export = false`: nothing is made, and what splashd made before is removed at the start;
    /// `library export` says the folder is off.
    @Test func exportOffMakesNothingAndRemovesWhatWasMade() async throws {
        try await SplashdFixture.run { fixture in
            let first = try await fixture.splashd(.sync())
            let photo = try #require(try await first.seedCatalogue(count: 1).first)
            _ = try await first.send(PhotosLikeRequest(id: photo.id))
            try await Self.waitFor(first, "My Collection", endingIn: ["(\(photo.id)).jpg"], "the liked photo in My Collection")
            let own = Self.folder(first) + "/My Collection/mine.jpg"
            try Data("mine".utf8).write(to: URL(fileURLWithPath: own))
            await first.stop()

            let daemon = try await fixture.splashd(.sync(directory: first.directory, email: first.account, config: "[pictures]\nexport = false\n"))
            try await daemon.wait(for: "splashd's entries removed") { Self.names(daemon, "My Collection") == ["mine.jpg"] }
            #expect(await daemon.error(LibraryExportRequest(check: true))?.kind == .conflict)
        }
    }
}
