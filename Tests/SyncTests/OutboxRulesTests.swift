import Account
import Foundation
import GRDB
import HTTP
@testable import Sync
@testable import Library
import Logging
import Shared
import Store
import Supabase
import Support
import Testing
import TestSupport

/// The outbox's rules where a crash, a lost answer or a cancelled pair meets the server: an op whose
/// delivery is uncertain never cancels, a later op supersedes an earlier one, and a pulled row passed
/// over for a waiting op is read again once nothing waits (issues 16, 23, 24).
@Suite struct OutboxRulesTests {
    let dir = TemporaryDirectory()
    let store: Store
    let likes: LikeActions
    let edits: EditActions

    init() throws {
        store = try Store(path: dir.file("s.sqlite"))
        likes = LikeActions(store: store)
        edits = EditActions(store: store)
        try store.write { db in
            for n in 0..<3 { try PhotoRecord(source: .unsplash, remoteId: "p\(n)", fetchedAt: Date()).insert(db) }
        }
    }

    func ops() throws -> [OutboxEntry] { try store.read { db in try OutboxStore.list(db, rejectedOnly: false) } }

    /// The push engine takes the batch (attempts + 1) and the answer is lost with the connection.
    func attemptAndLoseTheAnswer() throws {
        try store.write { db in
            let seqs = try OutboxStore.list(db, rejectedOnly: false).filter { $0.state == .pending }.compactMap(\.seq)
            try OutboxStore.markInFlight(db, seqs, now: Date())
            try OutboxStore.retryLater(db, seqs, at: Date().addingTimeInterval(60), error: "connection reset", now: Date())
        }
    }

    func markAllInFlight() throws {
        try store.write { db in try OutboxStore.markInFlight(db, try OutboxStore.list(db, rejectedOnly: false).compactMap(\.seq), now: Date()) }
    }

    // The like reached the server but its answer was lost; the unlike must go out.
    @Test func anUnlikeAfterALikeWhoseAnswerWasLostIsSent() throws {
        _ = try likes.like(photoId: "unsplash:p0", accountId: "a")
        try attemptAndLoseTheAnswer()
        #expect(try likes.unlike(photoId: "unsplash:p0", accountId: "a") == .changed(queued: true))
        let queued = try ops()
        #expect(queued.map(\.op) == [.unlike])
        #expect(try OutboxPayload.decode(LikeActions.Payload.self, from: queued[0].payload).deletedAt != nil)
    }

    @Test func anUnlikeWhileTheLikeIsInFlightWaitsBehindIt() throws {
        _ = try likes.like(photoId: "unsplash:p0", accountId: "a")
        try markAllInFlight()
        #expect(try likes.unlike(photoId: "unsplash:p0", accountId: "a") == .changed(queued: true))
        #expect(try ops().map(\.op) == [.like, .unlike])
        let due = try store.read { db in try OutboxStore.due(db, accountId: "a", entity: LikeActions.entity, now: Date(), limit: 10) }
        #expect(due.isEmpty, "order per photo: the unlike waits for the like in flight")
    }

    @Test func aLikeResetAfterACrashIsSupersededByTheUnlikeBehindIt() throws {
        _ = try likes.like(photoId: "unsplash:p0", accountId: "a")
        try markAllInFlight()
        _ = try likes.unlike(photoId: "unsplash:p0", accountId: "a")
        _ = try store.write { db in try OutboxStore.resetInFlight(db) }
        #expect(try store.write { db in try OutboxStore.dropSuperseded(db, accountId: "a") } == 1)
        #expect(try ops().map(\.op) == [.unlike])
    }

    func recordEdit(_ id: String) throws {
        _ = try edits.record(
            editId: id, photoId: "unsplash:p1", accountId: "a", pipeline: [], path: "library/unsplash/p1.edit-\(id).jpg",
            bytes: 10, checksum: "x")
    }

    @Test func anEditRemovedBeforeItsUploadEverLeftNeedsNothingOnTheServer() throws {
        try recordEdit("e0")
        #expect(try edits.remove(editId: "e0", accountId: "a") == .removed(queued: false, path: "library/unsplash/p1.edit-e0.jpg", uploadInFlight: false))
        #expect(try ops().isEmpty)
    }

    // A removal while the upload is in flight, then a crash; after the restart the
    // upload, pending again with its file gone, must not be retried forever.
    @Test func anUploadInFlightWhenItsEditIsRemovedIsSupersededByTheRemoval() throws {
        try recordEdit("e1")
        try markAllInFlight()
        #expect(try edits.remove(editId: "e1", accountId: "a") == .removed(queued: true, path: "library/unsplash/p1.edit-e1.jpg", uploadInFlight: true))
        #expect(try ops().map(\.op) == [.upsert, .delete])
        _ = try store.write { db in try OutboxStore.resetInFlight(db) }  // the crash
        #expect(try store.write { db in try OutboxStore.dropSuperseded(db, accountId: "a") } == 1)
        let left = try ops()
        #expect(left.map(\.op) == [.delete])
        let due = try store.read { db in try OutboxStore.due(db, accountId: "a", entity: EditActions.entity, now: Date(), limit: 10) }
        #expect(due.map(\.op) == [.delete], "the removal is due at once")
    }

    @Test func anEditWhoseUploadWasAttemptedIsRemovedOnTheServerToo() throws {
        try recordEdit("e2")
        try attemptAndLoseTheAnswer()
        guard case .removed(queued: true, _, _) = try edits.remove(editId: "e2", accountId: "a") else {
            Issue.record("an attempted upload may have landed: the removal must be queued")
            return
        }
        #expect(try ops().map(\.op) == [.delete])
    }

    @Test func aPersonsSyncClearsEveryBackoff() throws {
        _ = try likes.like(photoId: "unsplash:p0", accountId: "a")
        try attemptAndLoseTheAnswer()
        let before = try store.read { db in try OutboxStore.due(db, accountId: "a", entity: LikeActions.entity, now: Date(), limit: 10) }
        #expect(before.isEmpty)
        #expect(try store.write { db in try OutboxStore.clearBackoff(db, accountId: "a") } == 1)
        let after = try store.read { db in try OutboxStore.due(db, accountId: "a", entity: LikeActions.entity, now: Date(), limit: 10) }
        #expect(after.count == 1)
    }

    // A pulled row passed over because a local op waited is read again once nothing waits,
    // though the cursor moved past it.
    @Test func aRowPassedOverForAWaitingOpIsReadAgainOnceItResolves() throws {
        _ = try likes.like(photoId: "unsplash:p2", accountId: "a")
        let serverRow = ServerLikeRow(
            id: "00000000-0000-0000-0000-000000000001", photo_id: "unsplash:p2", liked_at: "2026-01-01T00:00:00+00:00",
            updated_at: "2026-01-01T00:00:00+00:00", deleted_at: nil)
        try store.write { db in
            _ = try LikesPuller.apply([serverRow], photos: [], accountId: "a", db: db)
            #expect(try PullRereads.ready(db, accountId: "a", table: "likes", entity: LikeActions.entity, limit: 10).isEmpty,
                    "not while the op waits")
        }
        _ = try store.write { db in try OutboxStore.complete(db, try OutboxStore.list(db, rejectedOnly: false).compactMap(\.seq)) }
        let ready = try store.read { db in try PullRereads.ready(db, accountId: "a", table: "likes", entity: LikeActions.entity, limit: 10) }
        #expect(ready == ["unsplash:p2"])
        let cursor = try store.read { db in try SyncCursor.load(db, accountId: "a", table: "likes") }
        #expect(cursor.lastID == serverRow.id, "the cursor moves on; the row is remembered instead")
    }

    /// A batch of like ops is read at once, by the store, into the server's rows; an op this version
    /// cannot read is refused with what is wrong with it, and the others still go.
    @Test func anUnreadableLikeOpIsRefusedAndTheRestOfItsBatchGoes() throws {
        let pusher = LikesPusher(
            backend: SupabaseBackend(http: try HTTPClient(configuration: .init(version: "test")), baseURL: "http://127.0.0.1:9", anonKey: "k"),
            store: store, batchSize: 500, clock: nil, logger: Logger(label: "test"))
        let good = #"{"likedAt":"2026-11-24T03:14:58.500Z","photoId":"unsplash:a","wasNew":true}"#
        let unreadable = [
            "not json": "it is not a JSON object",
            #"["unsplash:b"]"#: "it is not a JSON object",
            #"{"likedAt":"2026-11-24T03:14:58.500Z","wasNew":true}"#: "it names no photo",
            #"{"likedAt":"yesterday","photoId":"unsplash:b","wasNew":true}"#: "its like time is not a date",
            #"{"likedAt":"2026-11-24T03:14:58.500Z","deletedAt":7,"photoId":"unsplash:b","wasNew":true}"#: "its unlike time is not a date",
            #"{"likedAt":"2026-11-24T03:14:58.500Z","photo":"big","photoId":"unsplash:b","wasNew":true}"#: "its photo is not an object",
            #"{"actedAt":"noon","likedAt":"2026-11-24T03:14:58.500Z","photoId":"unsplash:b","wasNew":true}"#: "its action time is not a number",
            #"{"actedAt":1,"actedBy":7,"likedAt":"2026-11-24T03:14:58.500Z","photoId":"unsplash:b","wasNew":true}"#: "its device is not text",
            #"{"likedAt":"2026-11-24T03:14:58.500Z","photo":{"width":"wide"},"photoId":"unsplash:b","wasNew":true}"#:
                "its photo has a field of the wrong type",
        ]
        for (payload, problem) in unreadable {
            let ops = try store.write { db in
                try [good, payload, good].enumerated().map { index, payload in
                    try OutboxEntry(accountId: "u", entity: LikeActions.entity, entityId: "unsplash:\(index)", op: .like, payload: payload)
                        .inserted(db)
                }
            }
            let readings = try store.read { db in try pusher.read(ops, db: db) }
            let found = readings.map { reading -> String? in
                if case .unsendable(let problem) = reading { return problem }
                return nil
            }
            #expect(found[0] == nil && found[2] == nil, "\(payload)")
            #expect(found[1] == "this version of splashd cannot read the queued change: \(problem)", "\(payload)")
            guard case .ready(let rows) = readings[0] else { Issue.record("the good op did not read"); return }
            // An op queued before stamps goes stamped by its own time and this device.
            let device = try store.read { db in try DeviceRows.id(db) }
            #expect(rows.like == #"{"photo_id":"unsplash:a","liked_at":"2026-11-24T03:14:58.500Z","deleted_at":null,"acted_at":"2026-11-24T03:14:58.500Z","acted_by":""#
                + device + #""}"#)
            #expect(rows.photo == nil, "an op without its photo's metadata sends none")
        }
    }

    /// A photo goes to the server as one row whichever op carries it, a like or an edit (`PhotoPushRow`),
    /// and that row is `ServerPhotoRow`'s, the pull's reading of the server's photos: same keys, same
    /// values, nulls written out; URLs that do not read as an object go as none.
    @Test func aPhotosRowIsTheSameFromALikeAndAnEditAndIsTheServersRow() throws {
        let urls = #"{"regular":"https://images.example/a.jpg","thumb":"https://images.example/a.jpg?w=200"}"#
        let photos = [
            ##"{"authorName":"Åsa","color":"#2C5A8C","height":3000,"title":"A \"lake\" \\ at night\u0001","urls":"##
                + String(decoding: try JSONEncoder().encode(urls), as: UTF8.self) + #","width":4000}"#,
            #"{"urls":"not json"}"#,
            #"{"urls":"[\"a\"]"}"#,
            "{}",
        ]
        for photoJSON in photos {
            let likePayload = #"{"likedAt":"2026-11-24T03:14:58.500Z","photo":"# + photoJSON + #","photoId":"unsplash:a","wasNew":true}"#
            let photo = try OutboxPayload.decode(LikeActions.Payload.self, from: likePayload).photo!
            let editPayload = #"{"createdAt":"2026-11-24T03:14:58.500Z","editId":"e1","path":"edits/e1.jpg","photo":"# + photoJSON
                + #","photoId":"unsplash:a","pipeline":[],"wasNew":true}"#
            #expect(try OutboxPayload.decode(EditActions.Payload.self, from: editPayload).photo == photo, "an edit's payload, as written")
            let (like, edit) = try store.write { db in
                (try OutboxEntry(accountId: "u", entity: LikeActions.entity, entityId: "unsplash:a", op: .like, payload: likePayload).inserted(db),
                 try OutboxEntry(accountId: "u", entity: EditActions.entity, entityId: "e1", op: .upload, payload: editPayload).inserted(db))
            }
            let (likeRows, editRows) = try store.read { db in
                (try LikePushRows.fetch(db, seqs: [like.seq!]), try PhotoPushRow.fetch(db, seqs: [edit.seq!, like.seq!]))
            }
            guard case .rows(let rows) = likeRows[like.seq!], let built = rows.photo else { Issue.record("no photo row: \(likeRows)"); return }
            #expect(editRows[edit.seq!] == built, "an edit's photo goes as a like's")
            #expect(editRows[like.seq!] == built)
            let expected = ServerPhotoRow(
                photo_id: "unsplash:a", title: photo.title, description: photo.description, author_name: photo.authorName,
                author_url: photo.authorUrl, color: photo.color, width: photo.width, height: photo.height,
                urls: photo.urls.flatMap { try? JSONDecoder().decode([String: String].self, from: Data($0.utf8)) } ?? [:])
            let swift = try JSONSerialization.jsonObject(with: JSONEncoder().encode(expected)) as? NSDictionary
            let sql = try JSONSerialization.jsonObject(with: Data(built.utf8)) as? NSDictionary
            #expect(swift != nil && swift == sql, "\(built)")
            try store.write { db in _ = try db.execute(sql: "DELETE FROM outbox") }
        }
        // An op with no photo, or whose payload does not read, has no photo row.
        let (bare, broken) = try store.write { db in
            (try OutboxEntry(accountId: "u", entity: LikeActions.entity, entityId: "unsplash:b", op: .like,
                             payload: #"{"likedAt":"2026-11-24T03:14:58.500Z","photoId":"unsplash:b","wasNew":true}"#).inserted(db),
             try OutboxEntry(accountId: "u", entity: EditActions.entity, entityId: "e2", op: .upload, payload: #"{"photo":{"width":"wide"}"#).inserted(db))
        }
        #expect(try store.read { db in try PhotoPushRow.fetch(db, seqs: [bare.seq!, broken.seq!]) }.isEmpty)
    }

    /// Payload → pushed row → pulled row, for a like's op and an edit's (its photo's row and its own):
    /// what the daemon queues (Swift types, encoded as the outbox keeps them), the rows built from it for
    /// the server, and those rows read back as the pull reads the server's, agree field by field. A key renamed in one
    /// place only (a payload property, the SQL's JSON path, a row's column) reads back as nothing here.
    @Test func everyQueuedFieldReachesTheServersRowAndReadsBack() throws {
        let fields = PhotoRowFields(
            title: "Lake", description: "At night", authorName: "Åsa", authorUrl: "https://unsplash.example/@asa", color: "#2C5A8C",
            width: 4000, height: 3000, urls: #"{"regular":"https://images.example/a.jpg"}"#,
            originalSha256: String(repeating: "ab", count: 32), originalNote: "too large to share")
        let stamp = ActionStamp(milliseconds: 1_780_000_000_123, device: "device-a")
        let like = LikeActions.Payload(
            photoId: "unsplash:a", likedAt: Date(timeIntervalSince1970: 1_780_000_000.5), deletedAt: Date(timeIntervalSince1970: 1_780_000_000.125),
            actedAt: stamp.milliseconds, actedBy: stamp.device, wasNew: true, photo: fields)
        let edit = EditActions.Payload(
            editId: "e1", photoId: "unsplash:a", pipeline: [], path: "edits/e1.jpg", createdAt: Date(timeIntervalSince1970: 1_780_000_000),
            deletedAt: nil, wasNew: true, photo: fields)
        let (likeOp, editOp) = try store.write { db in
            (try OutboxEntry(accountId: "u", entity: LikeActions.entity, entityId: "unsplash:a", op: .unlike, payload: try OutboxPayload.encode(like)).inserted(db),
             try OutboxEntry(accountId: "u", entity: EditActions.entity, entityId: "e1", op: .upload, payload: try OutboxPayload.encode(edit)).inserted(db))
        }
        let (likeRows, photoRows) = try store.read { db in
            (try LikePushRows.fetch(db, seqs: [likeOp.seq!]), try PhotoPushRow.fetch(db, seqs: [editOp.seq!]))
        }
        guard case .rows(let rows) = likeRows[likeOp.seq!], let photoJSON = rows.photo else { Issue.record("\(likeRows)"); return }
        #expect(photoRows[editOp.seq!] == photoJSON, "an edit's photo goes as a like's")

        let pulledLike = try JSONDecoder().decode(ServerLikeRow.self, from: Data(rows.like.utf8))
        #expect(pulledLike.photo_id == like.photoId && pulledLike.stamp == stamp && rows.stamp == stamp)
        #expect(pulledLike.deleted_at.flatMap(SupabaseTime.parse).map(ActionStamp.milliseconds) == 1_780_000_000_125)
        #expect(SupabaseTime.parse(pulledLike.liked_at).map(ActionStamp.milliseconds) == 1_780_000_000_500)

        let pulledPhoto = try JSONDecoder().decode(ServerPhotoRow.self, from: Data(photoJSON.utf8))
        #expect(pulledPhoto.photo_id == "unsplash:a")
        #expect(pulledPhoto.title == fields.title && pulledPhoto.description == fields.description)
        #expect(pulledPhoto.author_name == fields.authorName && pulledPhoto.author_url == fields.authorUrl)
        #expect(pulledPhoto.color == fields.color && pulledPhoto.width == fields.width && pulledPhoto.height == fields.height)
        #expect(pulledPhoto.urls == ["regular": "https://images.example/a.jpg"])
        #expect(pulledPhoto.original_sha256 == fields.originalSha256 && pulledPhoto.original_note == fields.originalNote)
        // And as the store reads the server's photos (PulledRows), into a photo of its own.
        let readBack = try store.write { db -> PhotoRecord? in
            let answer = try PulledRows.PhotosAnswer.check(db, "[" + photoJSON.replacingOccurrences(of: "unsplash:a", with: "unsplash:readback") + "]")
            try PulledRows.fillBarePhotos(db, [answer], fetchedAt: Date(), addingUnknown: true)
            return try PhotoRecord.fetchOne(db, key: "unsplash:readback")
        }
        #expect(readBack?.title == fields.title && readBack?.description == fields.description)
        #expect(readBack?.authorName == fields.authorName && readBack?.authorUrl == fields.authorUrl)
        #expect(readBack?.color == fields.color && readBack?.width == fields.width && readBack?.height == fields.height)
        #expect(readBack?.urls.flatMap { try? JSONDecoder().decode([String: String].self, from: Data($0.utf8)) } == ["regular": "https://images.example/a.jpg"])
        #expect(PhotoMetadata.decode(readBack?.metadata) == PhotoMetadata(originalSha256: fields.originalSha256, originalNote: fields.originalNote))
        // Every column the pull reads is one the push writes, but the server's own updated_at.
        let written = Set((try JSONSerialization.jsonObject(with: Data(photoJSON.utf8)) as? [String: Any] ?? [:]).keys)
        #expect(written == Set(ServerPhotoRow.columns.split(separator: ",").map(String.init)).subtracting(["updated_at"]))

        // The edit's own row, as the pusher sends it and the puller reads it; every column read but the
        // one the server's trigger keeps is written.
        var removed = edit
        removed.pipeline = [FilterStep(filter: "sepia", params: [0.8])]
        removed.deletedAt = Date(timeIntervalSince1970: 1_780_000_100.25)
        let editJSON = try JSONEncoder().encode(EditsPusher.row(removed, accountId: "u"))
        let pulledEdit = try JSONDecoder().decode(ServerEditRow.self, from: editJSON)
        #expect(pulledEdit.id == "e1" && pulledEdit.photo_id == "unsplash:a" && pulledEdit.pipeline == removed.pipeline)
        #expect(pulledEdit.storage_path == EditsPusher.objectName(accountId: "u", editId: "e1"))
        #expect(SupabaseTime.parse(pulledEdit.created_at) == removed.createdAt)
        #expect(pulledEdit.deleted_at.flatMap(SupabaseTime.parse).map(ActionStamp.milliseconds) == 1_780_000_100_250)
        let editKeys = Set((try JSONSerialization.jsonObject(with: editJSON) as? [String: Any] ?? [:]).keys)
        #expect(editKeys == Set(ServerEditRow.columns.split(separator: ",").map(String.init)).subtracting(["updated_at"]))
    }

    /// A photo's row the server took from this device (`PhotoPushRow.recordHeld`, when a push succeeded) is
    /// not read for sending again — by a like or an edit of the same account — while it is the very row
    /// an op would send; another account, or the photo changed since, sends it again.
    @Test func aPhotosRowTheServerHoldsIsNotSentAgain() throws {
        let pusher = LikesPusher(
            backend: SupabaseBackend(http: try HTTPClient(configuration: .init(version: "test")), baseURL: "http://127.0.0.1:9", anonKey: "k"),
            store: store, batchSize: 500, clock: nil, logger: Logger(label: "test"))
        func payload(title: String) -> String {
            #"{"likedAt":"2026-11-24T03:14:58.500Z","photo":{"title":""# + title
                + #"","urls":"{\"thumb\":\"https://images.example/a.jpg\"}","width":40},"photoId":"unsplash:a","wasNew":true}"#
        }
        func read(account: String, payload: String) throws -> LikePushRows.Rows? {
            let op = try store.write { db in
                try OutboxEntry(accountId: account, entity: LikeActions.entity, entityId: "unsplash:a", op: .like, payload: payload).inserted(db)
            }
            defer { _ = try? store.write { db in try OutboxStore.complete(db, [op.seq!]) } }
            let (readings, edit) = try store.read { db in (try pusher.read([op], db: db), try PhotoPushRow.fetch(db, seqs: [op.seq!])) }
            guard case .ready(let rows) = readings.first else { Issue.record("the op did not read: \(readings)"); return nil }
            #expect(edit[op.seq!] == rows.photo, "an edit reads the same")
            return rows
        }
        func photoRow(account: String, payload: String) throws -> String? { try read(account: account, payload: payload)?.photo }
        let sent = try #require(try read(account: "u", payload: payload(title: "Lake")))
        let first = try #require(sent.photo)
        try store.write { db in _ = try pusher.sent([sent], answer: [], accountId: "u", db: db) }
        #expect(try photoRow(account: "u", payload: payload(title: "Lake")) == nil, "held as it is: not sent")
        #expect(try photoRow(account: "v", payload: payload(title: "Lake")) == first, "another account's server rows are its own")
        let sentAgain = try #require(try read(account: "u", payload: payload(title: "Lake at night")))
        #expect(sentAgain.photo != nil && sentAgain.photo != first)
        try store.write { db in _ = try pusher.sent([sentAgain], answer: [], accountId: "u", db: db) }
        #expect(try photoRow(account: "u", payload: payload(title: "Lake at night")) == nil)
        #expect(try photoRow(account: "u", payload: payload(title: "Lake")) == first, "the server holds the newer row now")
    }

    /// A push batch is cut by its payloads' bytes as well as by count; one op over the budget still goes.
    @Test func aBatchIsCutAtItsByteBudget() {
        let ops = [10, 20, 30, 40].map { size in
            OutboxEntry(accountId: "u", entity: LikeActions.entity, entityId: "unsplash:\(size)", op: .like,
                        payload: String(repeating: "x", count: size))
        }
        func sizes(_ bytes: Int) -> [Int] { PushEngine.prefix(ops, bytes: bytes).map(\.payload.utf8.count) }
        #expect(sizes(100) == [10, 20, 30, 40])
        #expect(sizes(99) == [10, 20, 30])
        #expect(sizes(60) == [10, 20, 30])
        #expect(sizes(59) == [10, 20])
        #expect(sizes(5) == [10], "an op over the budget goes alone")
        #expect(PushEngine.prefix([], bytes: 5).isEmpty)
    }
}
