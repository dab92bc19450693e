#if canImport(Glibc)
import Glibc
#endif
import Clocks
@testable import Daemon
import Foundation
import GRDB
@testable import Library
import Logging
import Shared
import Store
import Testing
import TestSupport

/// The Pictures folder's names, what it counts as its own, the reconcile against a real directory, and
/// where the folder is by default (no daemon; the integration tests are PicturesFolderTests).
@Suite struct PicturesFolderUnitTests {
    @Test func namesAreAuthorTitleAndTheWholeID() {
        #expect(PicturesFolder.name(author: "Ana", title: "Tram in Lisbon", id: "unsplash:Dwu85P9SOIk", extension: "jpg")
            == "Ana – Tram in Lisbon (unsplash:Dwu85P9SOIk).jpg")
        #expect(PicturesFolder.name(author: nil, title: "Tram", id: "unsplash:a", extension: "jpg") == "Tram (unsplash:a).jpg")
        #expect(PicturesFolder.name(author: " ", title: nil, id: "unsplash:a", extension: "png") == "(unsplash:a).png")
        // No slash, control character, line break, leading dot or parenthesis from a catalogue.
        let hostile = PicturesFolder.name(author: "../..\u{0}x", title: "a/b\nc (1)\u{7}", id: "nasa:PIA/1 2", extension: "jpg")
        #expect(hostile == "∕.. x – a∕b c [1] (nasa:PIA_1 2).jpg", "\(hostile)")
        #expect(!hostile.contains("/") && !hostile.unicodeScalars.contains { $0.properties.generalCategory == .control })
        // No hidden file, even with a space between the dots; no space at either end of a part.
        #expect(PicturesFolder.name(author: ". . Ana ", title: "\t Tram\u{2003}", id: "unsplash:a", extension: "jpg")
            == "Ana – Tram (unsplash:a).jpg")
        #expect(PicturesFolder.name(author: ". .", title: nil, id: "unsplash:a", extension: "jpg") == "(unsplash:a).jpg")
        // Bounded, cut on a character, the id kept whole.
        let long = PicturesFolder.name(author: "Ana", title: String(repeating: "ç", count: 400), id: "unsplash:x", extension: "jpg")
        #expect(long.utf8.count <= 200 && long.hasSuffix("… (unsplash:x).jpg"), "\(long.utf8.count)")
    }

    /// Names skip Unicode's tables for ASCII: the shortcut must say what the tables say, for every ASCII
    /// scalar and a few others.
    @Test func theASCIIShortcutAgreesWithUnicodesCategories() {
        let blanks: Set<Unicode.GeneralCategory> = [.control, .format, .lineSeparator, .paragraphSeparator, .spaceSeparator]
        let scalars = (0..<128).compactMap(Unicode.Scalar.init) + ["\u{85}", "\u{A0}", "\u{200B}", "\u{2028}", "é", "–"]
        for scalar in scalars {
            #expect(PicturesFolder.isBlank(scalar) == blanks.contains(scalar.properties.generalCategory), "U+\(String(scalar.value, radix: 16))")
            #expect(PicturesFolder.isControl(scalar) == (scalar.properties.generalCategory == .control), "U+\(String(scalar.value, radix: 16))")
        }
    }

    @Test func onlyItsOwnNamesAreSplashds() {
        #expect(PicturesFolder.isOurs("Ana – Tram (unsplash:abc).jpg", in: .collection))
        #expect(PicturesFolder.isOurs("(local:0123456789abcdef).png", in: .collection))
        #expect(PicturesFolder.isOurs("Ana – IMG_0001 (google:AF1QipN0).jpg", in: .collection), "a photo picked from Google Photos")
        #expect(!PicturesFolder.isOurs("holiday (2).jpg", in: .collection))
        #expect(!PicturesFolder.isOurs("Tram (unsplash:abc).txt", in: .collection))
        #expect(!PicturesFolder.isOurs("Tram(unsplash:abc).jpg", in: .collection))
        #expect(!PicturesFolder.isOurs("notes.txt", in: .collection))
        #expect(PicturesFolder.isOurs("Ana – Tram (3f2a9c1e-5b7d-4e0a-9c1f-2d3e4f5a6b7c).jpg", in: .edits))
        #expect(!PicturesFolder.isOurs("Ana – Tram (unsplash:abc).jpg", in: .edits))
        #expect(!PicturesFolder.isOurs("Ana (3f2a9c1e-5b7d-4e0a-9c1f-2d3e4f5a6b7c).jpg", in: .collection))
    }

    /// A store with two liked photos (one with an edit) and their files; the reconcile makes hard links,
    /// leaves a person's file, removes an entry for a photo no longer liked, and is then in step.
    @Test func aReconcileMakesExactlyWhatTheLibraryHolds() throws {
        let dir = TemporaryDirectory()
        let data = dir.file("data")
        try FileManager.default.createDirectory(atPath: data + "/library/unsplash", withIntermediateDirectories: true)
        let store = try Store(path: dir.file("s.sqlite"))
        try store.write { db in
            for id in ["a", "b", "c"] {
                try PhotoRecord(source: .unsplash, remoteId: id, title: "T\(id)", authorName: "Ana", fetchedAt: Date()).insert(db)
                try PhotoFileStore.record(db, .init(
                    photoId: "unsplash:\(id)", variant: "regular", path: "library/unsplash/\(id).regular.jpg", inLibrary: true, bytes: 1,
                    checksum: nil, createdAt: Date(), lastAccessAt: Date()))
            }
            for id in ["a", "b"] { try LikeRecord(accountId: "me", photoId: "unsplash:\(id)", likedAt: Date(), updatedAt: Date()).insert(db) }
        }
        for id in ["a", "b", "c"] { try Data(id.utf8).write(to: URL(fileURLWithPath: data + "/library/unsplash/\(id).regular.jpg")) }
        let root = dir.file("Pictures/Splash")
        let folder = PicturesFolder(store: store, folder: root, dataDirectory: data)
        try FileManager.default.createDirectory(atPath: root + "/My Collection", withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(fileURLWithPath: root + "/My Collection/Ana – Tc (unsplash:c).jpg"))
        try Data("mine".utf8).write(to: URL(fileURLWithPath: root + "/My Collection/mine.jpg"))

        let wanted = try folder.wanted(accountId: "me")
        #expect(wanted.map(\.name).sorted() == ["Ana – Ta (unsplash:a).jpg", "Ana – Tb (unsplash:b).jpg"])
        let outcome = folder.reconcile(wanted)
        #expect(outcome.made == 2 && outcome.removed == 1 && outcome.failures.isEmpty, "\(outcome)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: root + "/My Collection").sorted()
            == ["Ana – Ta (unsplash:a).jpg", "Ana – Tb (unsplash:b).jpg", "mine.jpg"])
        // The entry is a hard link to the library's file (attributesOfItem does not follow a symlink).
        let entry = try FileManager.default.attributesOfItem(atPath: root + "/My Collection/Ana – Ta (unsplash:a).jpg")
        let file = try FileManager.default.attributesOfItem(atPath: data + "/library/unsplash/a.regular.jpg")
        #expect(entry[.type] as? FileAttributeType == .typeRegular)
        #expect(entry[.systemFileNumber] as? Int == file[.systemFileNumber] as? Int && entry[.referenceCount] as? Int == 2)
        #expect(folder.check(wanted).inStep)
        #expect(folder.reconcile(wanted).made == 0, "nothing to do the second time")

        // A stale hard link (the library file replaced under the same name) is wrong, and mended.
        unlink(data + "/library/unsplash/a.regular.jpg")
        try Data("a2".utf8).write(to: URL(fileURLWithPath: data + "/library/unsplash/a.regular.jpg"))
        #expect(folder.check(wanted).wrong == ["My Collection/Ana – Ta (unsplash:a).jpg"])
        #expect(folder.reconcile(wanted).made == 1 && folder.check(wanted).inStep)

        // Off: splashd's entries go, the person's file and its folder stay.
        #expect(folder.clear().removed == 2)
        #expect(try FileManager.default.contentsOfDirectory(atPath: root + "/My Collection") == ["mine.jpg"])
    }

    /// A liked photo's file back from the cache (after a restart the image queue moves it once the
    /// folder's start reconcile has run): no count moves, and the store's move wakes the folder. Found
    /// by the power-cut part: the entry stayed missing until something else rang.
    @Test func aFileMovedIntoTheLibraryWakesTheFolder() async throws {
        let dir = TemporaryDirectory()
        let data = dir.file("data")
        try FileManager.default.createDirectory(atPath: data + "/library/unsplash", withIntermediateDirectories: true)
        let store = try Store(path: dir.file("s.sqlite"))
        let cached = PhotoFileStore.File(
            photoId: "unsplash:a", variant: "regular", path: "images/unsplash/a.regular.jpg", inLibrary: false, bytes: 1,
            checksum: nil, createdAt: Date(), lastAccessAt: Date())
        try store.write { db in
            try PhotoRecord(source: .unsplash, remoteId: "a", title: "Ta", authorName: "Ana", fetchedAt: Date()).insert(db)
            try PhotoFileStore.record(db, cached)
            try LikeRecord(accountId: "me", photoId: "unsplash:a", likedAt: Date(), updatedAt: Date()).insert(db)
        }
        let service = PicturesFolderService(
            folder: PicturesFolder(store: store, folder: dir.file("Pictures/Splash"), dataDirectory: data), enabled: true,
            accountId: { "me" }, clock: AnyClock(ContinuousClock()), logger: Logger(label: "test"))
        let library = PhotoLibrary(store: store)
        service.follow(EventBus(), counts: try library.counts(accountId: "me").library, library: library)
        let before = try await service.export(check: false)
        #expect(before.made == 0 && !before.following, "nothing in the library yet: \(before)")

        try Data("a".utf8).write(to: URL(fileURLWithPath: data + "/library/unsplash/a.regular.jpg"))
        try store.write { db in try PhotoFileStore.moved(db, cached, to: cached.movedPath, inLibrary: true, now: Date()) }
        let after = try await service.export(check: true)
        #expect(after.following, "the move woke the folder")
        #expect(after.missing == ["My Collection/Ana – Ta (unsplash:a).jpg"])
    }

    @Test func theDefaultFolderIsTheXDGPicturesFoldersSplash() throws {
        let dir = TemporaryDirectory()
        let home = dir.path
        #expect(DaemonConfig.picturesDirectory(environment: ["HOME": home]) == home + "/Pictures")
        #expect(DaemonConfig.picturesDirectory(environment: [:]) == nil)
        try FileManager.default.createDirectory(atPath: home + "/.config", withIntermediateDirectories: true)
        try """
            # written by xdg-user-dirs-update
            XDG_DESKTOP_DIR="$HOME/Área de trabalho"
            XDG_PICTURES_DIR="$HOME/Imagens"
            """.write(toFile: home + "/.config/user-dirs.dirs", atomically: true, encoding: .utf8)
        #expect(DaemonConfig.picturesDirectory(environment: ["HOME": home]) == home + "/Imagens")
        let config = try DaemonConfig.load(file: nil, environment: ["HOME": home])
        #expect(config.picturesFolder == home + "/Imagens/Splash" && config.picturesExport)
        #expect(DaemonConfig.userDir("XDG_PICTURES_DIR", in: #"XDG_PICTURES_DIR="/srv/photos/""#, home: home) == "/srv/photos")
        #expect(DaemonConfig.userDir("XDG_PICTURES_DIR", in: #"XDG_PICTURES_DIR="$HOME/""#, home: home) == nil)

        let file = dir.file("c.toml")
        try "[pictures]\nfolder = \"~/Fotos\"\nexport = false\n".write(toFile: file, atomically: true, encoding: .utf8)
        let set = try DaemonConfig.load(file: file, environment: ["HOME": home])
        #expect(set.picturesFolder == home + "/Fotos" && !set.picturesExport)
        try "[pictures]\nfolder = \"Fotos\"\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(throws: ConfigError.self) { try DaemonConfig.load(file: file, environment: ["HOME": home]) }
    }
}

/// What wakes the Pictures folder's reconcile: only what can change the folder.
@Suite struct PicturesFolderWakesTests {
    @Test func onlyWhatCanChangeTheFolderWakesIt() {
        let counts = LibraryCounts(photos: 100, liked: 10, edited: 2, dismissed: 0, files: 10, bytes: 1000)
        var wakes = PicturesFolderWakes(account: "u1", library: counts)
        func wake(_ event: Event, _ acting: String = "u1") -> Bool { wakes.wakes(on: event, actingAccount: acting) }
        func account(_ id: String?, _ state: AccountStatus.State = .signedIn) -> Event {
            .accountChanged(AccountStatus(state: state, userId: id))
        }
        func images(_ change: ImagesProgress.Change) -> Event {
            .imagesChanged(ImagesProgress(photo: "unsplash:a", change: change, downloading: 0, waiting: 0, finished: 1, bytes: 1))
        }

        // Restored, confirmed, refreshed: the same account acting wakes nothing; another account does.
        #expect(!wake(account("u1", .signedInOffline)))
        #expect(!wake(account("u1")))
        #expect(wake(account(nil, .signedOut), "guest"), "signed out: the guest's likes")
        #expect(!wake(account(nil, .signedOut), "guest"))
        #expect(wake(account("u1"), "u1"), "signed in again")

        // Counts: a pull's new photos, none liked, wake nothing; liked, edited and files each do, once.
        var more = counts
        more.photos += 500
        more.bytes += 10
        #expect(!wake(.libraryChanged(more)))
        for change in [\LibraryCounts.liked, \.edited, \.files] {
            more[keyPath: change] += 1
            #expect(wake(.libraryChanged(more)), "\(change)")
            #expect(!wake(.libraryChanged(more)), "the same counts again")
        }

        // A like, unlike or edit, and a file that arrived, wake it; a download started or failed does not.
        #expect(wake(.photoChanged(PhotoChange(id: "unsplash:a", change: .liked))))
        #expect(wake(images(.finished)))
        #expect(!wake(images(.started)))
        #expect(!wake(images(.failed)))
        #expect(!wake(.daemonReloaded))
    }

    /// One file's arrival rings twice (its count, then its `finished`): a reconcile begun after both
    /// answers both, and the doorbell's remembered ring finds nothing left to do. Until a reconcile
    /// after the last wake has ended, the folder is still following.
    @Test func aReconcileCoversEveryWakeBeforeIt() {
        let counts = LibraryCounts(photos: 1, liked: 1, edited: 0, dismissed: 0, files: 0, bytes: 0)
        var wakes = PicturesFolderWakes(account: "u1", library: counts)
        let nothing = wakes.beginReconcile()
        #expect(!wakes.following && nothing == nil, "nothing rang")

        var arrived = counts
        arrived.files = 1
        func wake(_ event: Event) -> Bool { wakes.wakes(on: event, actingAccount: "u1") }
        #expect(!wake(.imagesChanged(ImagesProgress(photo: "unsplash:a", change: .started, downloading: 1, waiting: 0, finished: 0, bytes: 0))))
        #expect(wakes.downloading == 1)
        #expect(wake(.libraryChanged(arrived)))
        #expect(wake(.imagesChanged(ImagesProgress(photo: "unsplash:a", change: .finished, downloading: 0, waiting: 0, finished: 1, bytes: 9))))
        #expect(wakes.downloading == 0 && wakes.following)

        let covering = wakes.beginReconcile()
        #expect(covering == 2)
        #expect(wakes.following, "begun, not ended")
        wakes.finishReconcile(covering: 2)
        #expect(!wakes.following)
        let again = wakes.beginReconcile()
        #expect(again == nil, "the second ring was answered already")

        // A wake while a reconcile runs is not covered by it.
        #expect(wake(.photoChanged(PhotoChange(id: "unsplash:a", change: .unliked))))
        let next = wakes.beginReconcile()
        #expect(wake(.photoChanged(PhotoChange(id: "unsplash:a", change: .liked))))
        wakes.finishReconcile(covering: next ?? 0)
        let last = wakes.beginReconcile()
        #expect(wakes.following && last == 4)
    }

    /// Wakes that keep coming while the folder settles (a pull's pages of likes) say the library is still
    /// changing, so the reconcile waits for them; a settle with none says it is not.
    @Test func wakesDuringTheSettleSayTheLibraryIsStillChanging() {
        let counts = LibraryCounts(photos: 1, liked: 1, edited: 0, dismissed: 0, files: 0, bytes: 0)
        var wakes = PicturesFolderWakes(account: "u1", library: counts)
        func like(_ id: String) -> Bool { wakes.wakes(on: .photoChanged(PhotoChange(id: id, change: .liked)), actingAccount: "u1") }
        #expect(like("unsplash:a"))
        wakes.settleBegins()
        let quiet = wakes.stillChanging()
        #expect(!quiet, "the wake that began the settle is the one answered")
        wakes.settleBegins()
        #expect(like("unsplash:b"))
        #expect(like("unsplash:c"))
        let burst = wakes.stillChanging()
        #expect(burst)
        let lookedAgain = wakes.stillChanging()
        #expect(!lookedAgain, "none since the last look")
        #expect(like("unsplash:d"))
        let more = wakes.stillChanging()
        #expect(more)
        let covering = wakes.beginReconcile()
        #expect(covering == 4, "the reconcile after the burst covers all of it")
    }
}
