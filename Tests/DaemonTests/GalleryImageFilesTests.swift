@testable import Daemon
import Foundation
import GRDB
import Library
import Shared
import Store
import Testing
import TestSupport
import Web

/// The gallery's pictures are looked up in the store once and remembered until the store changes a
/// photo's files: whatever changes them, the next answer is the store's.
@Suite struct GalleryImageFilesTests {
    let directory = TemporaryDirectory()
    let store: Store
    let pictures: GalleryImageFiles

    init() throws {
        try FileManager.default.createDirectory(atPath: directory.file("data/images"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory.file("cache/images"), withIntermediateDirectories: true)
        store = try Store(path: directory.file("store.sqlite"))
        pictures = GalleryImageFiles.following(
            library: PhotoLibrary(store: store), images: nil, dataDirectory: directory.file("data"), cacheDirectory: directory.file("cache"))
        try store.write { db in
            for id in ["a", "b"] { try PhotoRecord(source: .unsplash, remoteId: id, fetchedAt: Date()).insert(db) }
        }
    }

    /// A file under the data directory (`images/NAME`) with a row naming it as `variant` of `photo`.
    func add(_ name: String, variant: String, to photo: String, bytes: String = "jpeg") throws {
        try Data(bytes.utf8).write(to: URL(fileURLWithPath: directory.file("data/images/" + name)))
        try store.write { db in
            try db.execute(sql: """
                INSERT OR REPLACE INTO photo_files (photo_id, variant, path, in_library, bytes, checksum, created_at, last_access_at)
                VALUES (?, ?, ?, 1, ?, ?, ?, ?)
                """, arguments: [photo, variant, "images/" + name, bytes.utf8.count, "hash-of-" + name, Date(), Date()])
        }
    }

    func path(_ name: String) -> String { directory.file("data/images/" + name) }

    @Test func aPictureIsRememberedUntilTheStoreChangesAPhotosFiles() async throws {
        try add("a.jpg", variant: "regular", to: "unsplash:a")
        let first = try #require(try await pictures.file(photoId: "unsplash:a", size: .thumb))
        #expect(first == GalleryImageFile(path: path("a.jpg"), contentHash: "hash-of-a.jpg", immutable: false))
        #expect(pictures.resolved.file(for: .init(photoId: "unsplash:a", size: .thumb)) == first)

        // A thumbnail arrives, for another photo: the store's next answer is asked for again.
        try add("b.thumb.jpg", variant: "thumb", to: "unsplash:b")
        #expect(pictures.resolved.count == 0)
        #expect(try await pictures.file(photoId: "unsplash:a", size: .thumb) == first)
        // And for this one: the thumbnail answers from now on.
        try add("a.thumb.jpg", variant: "thumb", to: "unsplash:a")
        #expect(try await pictures.file(photoId: "unsplash:a", size: .thumb)?.path == path("a.thumb.jpg"))
        // The same file again, new bytes (a thumbnail made again): its new hash.
        try add("a.thumb.jpg", variant: "thumb", to: "unsplash:a", bytes: "other")
        try store.write { db in try db.execute(sql: "UPDATE photo_files SET checksum = 'new' WHERE variant = 'thumb' AND photo_id = 'unsplash:a'") }
        #expect(try await pictures.file(photoId: "unsplash:a", size: .thumb)?.contentHash == "new")
    }

    @Test func changesElsewhereInTheStoreKeepWhatWasResolved() async throws {
        try add("a.jpg", variant: "regular", to: "unsplash:a")
        _ = try await pictures.file(photoId: "unsplash:a", size: .screen)
        try store.write { db in
            try db.execute(sql: "UPDATE photos SET dismissed_at = ? WHERE id = 'unsplash:a'", arguments: [Date()])
            try LikeRecord(accountId: "", photoId: "unsplash:b", likedAt: Date(), updatedAt: Date()).insert(db)
        }
        #expect(pictures.resolved.count == 1)
        // A write that rolls back changed nothing.
        struct Refused: Error {}
        #expect(throws: Refused.self) {
            try store.write { db in
                try db.execute(sql: "DELETE FROM photo_files")
                throw Refused()
            }
        }
        #expect(pictures.resolved.count == 1)
    }

    @Test func aPhotoRemovedFromTheStoreHasNoPictureAnyMore() async throws {
        try add("a.jpg", variant: "regular", to: "unsplash:a")
        #expect(try await pictures.file(photoId: "unsplash:a", size: .original) != nil)
        try store.write { db in try db.execute(sql: "DELETE FROM photos WHERE id = 'unsplash:a'") }
        #expect(try await pictures.file(photoId: "unsplash:a", size: .original) == nil)
    }

    @Test func aFileDeletedBehindTheStoresBackIsLookedUpAgain() async throws {
        try add("a.jpg", variant: "regular", to: "unsplash:a")
        try add("a.thumb.jpg", variant: "thumb", to: "unsplash:a")
        #expect(try await pictures.file(photoId: "unsplash:a", size: .thumb)?.path == path("a.thumb.jpg"))
        try FileManager.default.removeItem(atPath: path("a.thumb.jpg"))
        #expect(try await pictures.file(photoId: "unsplash:a", size: .thumb)?.path == path("a.jpg"))
        try FileManager.default.removeItem(atPath: path("a.jpg"))
        // Nothing here, and no image queue to fetch with: the daemon's reason, not a stale path.
        await #expect(throws: GalleryPictureUnavailable.self) { try await pictures.file(photoId: "unsplash:a", size: .thumb) }
    }

    /// A lookup that read the store before a change is not kept after it.
    @Test func aLookupOverlappingAChangeIsNotKept() {
        let resolved = ResolvedPictures()
        let key = ResolvedPictures.Key(photoId: "unsplash:a", size: .thumb)
        let before = resolved.generation
        resolved.storeChanged()
        resolved.keep(GalleryImageFile(path: "/old", contentHash: "h", immutable: false), for: key, resolvedAt: before)
        #expect(resolved.file(for: key) == nil)
        resolved.keep(GalleryImageFile(path: "/new", contentHash: "h", immutable: false), for: key, resolvedAt: resolved.generation)
        #expect(resolved.file(for: key)?.path == "/new")
    }

    @Test func whatIsKeptIsBounded() {
        let resolved = ResolvedPictures()
        let file = GalleryImageFile(path: "/p", contentHash: "h", immutable: false)
        for n in 0...ResolvedPictures.capacity {
            resolved.keep(file, for: .init(photoId: "unsplash:\(n)", size: .thumb), resolvedAt: resolved.generation)
        }
        #expect(resolved.count == 1)
        #expect(resolved.file(for: .init(photoId: "unsplash:\(ResolvedPictures.capacity)", size: .thumb)) != nil)
    }
}
