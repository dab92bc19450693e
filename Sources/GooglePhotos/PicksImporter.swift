#if canImport(Glibc)
import Glibc
#endif
import Editing
import Foundation
import GRDB
import Library
import Logging
import ServiceLifecycle
import Shared
import Store
import Support

/// Brings what the person picks in Google Photos into the library: a picking session made at
/// Google, polled at the interval it advises until the person is done (or its time is up), its items
/// listed page by page, each photo downloaded with the Bearer token (resumed from its `.part`), checked
/// like a file from `import DIR` — a near-duplicate of a library photo is reported and not kept — and
/// recorded as a `google:` photo in its own transaction; a video is skipped with the reason; then the
/// session is deleted at Google.
///
/// Every step is in the store (`GooglePickRows`), so a stop or a crash in the middle goes on where it
/// was at the next start: nothing is downloaded twice once recorded, nothing recorded twice. A baseUrl
/// lives an hour: the items are listed again when a download is refused, once per pick, and a pick
/// refused again fails with the reason instead of being asked forever. A connection Google ended stops
/// the session with the reason; what was imported stays.
public final class PicksImporter: Service, Sendable {
    private let store: Store
    private let api: PickerAPI
    private let importer: PhotoImporter
    private let dataDirectory: String
    private let maxFileBytes: Int64
    private let progress: @Sendable (ImportProgress) -> Void
    /// Photos just recorded (the library's counts, its events and screen copies follow them).
    private let imported: @Sendable ([ImportedPhoto]) -> Void
    private let logger: Logger
    private let wakeup = Wakeup()
    /// Moves whenever a session or a pick is written: `status` waits on it for a session to end.
    private let written = ChangeSignal()
    /// Whether whole files may be downloaded now (not on a metered network, not paused): picks wait
    /// otherwise, and `ring` says when they may go.
    private let mayDownload: @Sendable () -> Bool

    public init(
        store: Store, api: PickerAPI, importer: PhotoImporter, dataDirectory: String, maxFileBytes: Int64,
        progress: @escaping @Sendable (ImportProgress) -> Void, imported: @escaping @Sendable ([ImportedPhoto]) -> Void = { _ in },
        mayDownload: @escaping @Sendable () -> Bool = { true }, logger: Logger
    ) {
        self.mayDownload = mayDownload
        self.imported = imported
        self.store = store
        self.api = api
        self.importer = importer
        self.dataDirectory = dataDirectory
        self.maxFileBytes = maxFileBytes
        self.progress = progress
        self.logger = logger
    }

    /// Makes a picking session at Google for `accountId`'s library; the person picks at its pickerUri.
    public func start(accountId: String) async throws(GoogleFailure) -> GooglePickStart {
        let session = try await api.createSession()
        let now = Date()
        let row = GoogleSessionRow(
            sessionId: session.id, accountId: accountId, pickerUri: session.pickerUri, pollInterval: session.pollInterval,
            expiresAt: now.addingTimeInterval(Double(session.timeoutIn.components.seconds)), createdAt: now)
        do {
            try store.write { db in try GooglePickRows.insert(db, row) }
        } catch {
            await api.deleteSession(session.id)
            throw .local("cannot keep the picking session: \(error)")
        }
        logger.info("Google Photos picking session begun", metadata: ["splashd_op": "google", "splashd_session": "\(session.id)"])
        wakeup.ring()
        return GooglePickStart(session: row.sessionId, pickerUri: row.pickerUri, expiresAt: row.expiresAt)
    }

    /// How session `id` stands, waiting up to `wait` for it to end (woken by each write of the importer,
    /// which works in its own loop).
    public func status(session id: String, waitingUpTo wait: Duration) async throws(GoogleFailure) -> GooglePicks {
        let deadline = ContinuousClock.now + wait
        while true {
            let seen = written.generation
            // While it waits, only the session's state is read; the picks once, for the answer.
            let answerNow = ContinuousClock.now >= deadline || Task.isCancelled
            guard let (session, picks) = try read({ db in
                try GooglePickRows.session(db, id: id).map { session in
                    (session, answerNow || session.state.finished ? try GooglePickRows.picks(db, sessionId: id) : nil)
                }
            }) else { throw .unknownSession }
            if let picks {
                let counts = picks.reduce(into: GooglePickRows.Counts()) { $0.add($1.state) }
                return GooglePicks(
                    state: session.state.rawValue, detail: session.detail, total: counts.total, waiting: counts.waiting,
                    imported: counts.imported, duplicates: counts.duplicates, skipped: counts.skipped, failed: counts.failed,
                    picks: picks.map { GooglePick(item: $0.itemId, filename: $0.filename, state: $0.state.rawValue, photo: $0.photoId, detail: $0.detail) })
            }
            await written.wait(beyond: seen, until: deadline)
        }
    }

    /// Downloads may go again (a hold ended): sessions waiting to import move on.
    public func ring() {
        wakeup.ring()
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            // A session a stop or a crash cut short goes on at once.
            var deadline = await self.step()
            while !Task.isCancelled {
                await self.wakeup.wait(until: deadline)
                if Task.isCancelled { return }
                deadline = await self.step()
            }
        }
    }

    /// Moves every unfinished session on; when the next poll is due (nil: nothing waits on time).
    func step() async -> ContinuousClock.Instant? {
        let sessions: [GoogleSessionRow]
        do {
            sessions = try store.read { db in try GooglePickRows.unfinished(db) }
        } catch {
            logger.error("cannot read the picking sessions: \(error)", metadata: ["splashd_op": "google"])
            return ContinuousClock.now + .seconds(30)
        }
        var next: ContinuousClock.Instant?
        for session in sessions where !Task.isCancelled {
            switch session.state {
            case .picking:
                if let due = await poll(session) { next = min(next ?? due, due) }
            case .importing:
                if let due = await importPicks(session) { next = min(next ?? due, due) }
            default:
                break
            }
        }
        written.signal()
        return next
    }

    /// One look at a session the person is picking in: its picks listed once they are done.
    private func poll(_ session: GoogleSessionRow) async -> ContinuousClock.Instant? {
        if Date() >= session.expiresAt {
            finish(session, .expired, detail: "nothing was picked before the picking session's time was up")
            await api.deleteSession(session.sessionId)
            return nil
        }
        do throws(GoogleFailure) {
            let state = try await api.session(session.sessionId)
            guard state.mediaItemsSet else { return ContinuousClock.now + max(state.pollInterval, .milliseconds(100)) }
            let items = try await api.items(session: session.sessionId)
            let picks = items.enumerated().map { position, item in
                GooglePickRow(
                    itemId: item.id, position: position, kind: item.type, filename: item.filename, mimeType: item.mimeType,
                    width: item.width, height: item.height, takenAt: item.createTime, camera: item.camera,
                    state: item.type == "PHOTO" ? .waiting : .skipped,
                    detail: item.type == "PHOTO" ? nil : "a \(item.type.lowercased()), not a photo: splashd keeps photos")
            }
            do {
                try store.write { db in
                    try GooglePickRows.insert(db, sessionId: session.sessionId, picks: picks)
                    try GooglePickRows.setState(db, id: session.sessionId, .importing, now: Date())
                }
            } catch {
                // Not kept, not begun: listed again at the next poll.
                logger.error("cannot keep the picks: \(error)", metadata: ["splashd_op": "google"])
                return ContinuousClock.now + .seconds(30)
            }
            logger.info("\(picks.count) items picked in Google Photos", metadata: ["splashd_op": "google", "splashd_count": "\(picks.count)"])
            var importing = session
            importing.state = .importing
            return await importPicks(importing, listed: items)
        } catch {
            return handle(error, session) ? nil : ContinuousClock.now + .seconds(30)
        }
    }

    /// Downloads and records the picks still waiting; `listed`: items just listed (their baseUrls fresh).
    /// When to try again after a failure that passes (Google or the network unreachable); nil: done,
    /// stopped, or nothing to wait for.
    private func importPicks(_ session: GoogleSessionRow, listed: [PickerAPI.Item]? = nil) async -> ContinuousClock.Instant? {
        // Whole files: they wait with the library's downloads (a metered network, a pause) until `ring`.
        // Listed again then: the items' baseUrls live an hour.
        guard mayDownload() else { return nil }
        var items = Self.byId(listed ?? [])
        var relisted = listed != nil
        do throws(GoogleFailure) {
            let waiting = try read { db in try GooglePickRows.waiting(db, sessionId: session.sessionId) }
            var known = try read { db in try DuplicateFinder.libraryHashes(db, accountId: session.accountId) }
            for pick in waiting where !Task.isCancelled {
                report(session, current: pick.filename)
                if items[pick.itemId] == nil, !relisted {
                    // After a restart: baseUrls are not kept (they live an hour); the items are listed again.
                    items = Self.byId(try await api.items(session: session.sessionId))
                    relisted = true
                }
                guard let item = items[pick.itemId] else {
                    settle(session, pick, .failed, detail: "Google no longer lists this item")
                    continue
                }
                do throws(GoogleFailure) {
                    if let hash = try await importItem(item, pick: pick, session: session, known: known) { known.append(hash) }
                } catch .refused(let error, _) where error == "expired" {
                    // The baseUrl's hour is up: listed again, and tried once more with the fresh one.
                    items = Self.byId(try await api.items(session: session.sessionId))
                    guard let fresh = items[pick.itemId] else {
                        settle(session, pick, .failed, detail: "Google no longer lists this item")
                        continue
                    }
                    do throws(GoogleFailure) {
                        if let hash = try await importItem(fresh, pick: pick, session: session, known: known) { known.append(hash) }
                    } catch .refused(let error, let description) {
                        settle(session, pick, .failed, detail: "its download address was refused twice (\(error): \(description))")
                    }
                } catch .refused(let error, let description) {
                    settle(session, pick, .failed, detail: "\(error): \(description)")
                }
            }
            if Task.isCancelled { return nil }
            report(session, current: nil)
            finish(session, .done, detail: nil)
            await api.deleteSession(session.sessionId)
            return nil
        } catch {
            return handle(error, session) ? nil : ContinuousClock.now + .seconds(30)
        }
    }

    /// Downloads one photo into the library and records it; the hash it added to the library (nil: not
    /// added — a near-duplicate, or already there).
    private func importItem(
        _ item: PickerAPI.Item, pick: GooglePickRow, session: GoogleSessionRow, known: [(id: String, hash: PerceptualHash)]
    ) async throws(GoogleFailure) -> (id: String, hash: PerceptualHash)? {
        let relative = ImagePaths.library(source: PhotoSource.google.rawValue, remoteId: item.id, variant: "orig")
        let final = dataDirectory + "/" + relative
        let staged = final + ".download"
        do throws(FileError) {
            try DurableFile.makeDirectories(DurableFile.directory(of: final))
        } catch {
            throw .local("cannot make the library's google folder: \(error)")
        }
        if access(final, F_OK) != 0 {
            if access(staged, F_OK) != 0 { try await api.download(item, to: staged, maxBytes: maxFileBytes) }
            do {
                try DurableFile.syncFile(at: staged)
                try DurableFile.rename(staged, to: final)
            } catch {
                throw .local("cannot place the download: \(error)")
            }
        }
        let identity = PhotoImporter.Identity(
            source: .google, remoteId: item.id, title: item.filename.map { ($0 as NSString).deletingPathExtension },
            takenAt: item.createTime, metadata: Self.metadata(item), recordedPath: relative)
        do {
            switch try await importer.record(final, as: identity, known: known) {
            case .imported(let photo, let hash):
                settle(session, pick, .imported, photoId: photo.id)
                imported([photo])
                return (photo.id, hash)
            case .duplicate(let duplicate):
                unlink(final)
                settle(session, pick, .duplicate, photoId: duplicate.duplicateOf, detail: "\(duplicate.distance) bits from \(duplicate.duplicateOf)")
                logger.notice("\(identity.photoId) looks like \(duplicate.duplicateOf), already in the library: not kept", metadata: [
                    "splashd_op": "google", "splashd_photo": "\(identity.photoId)", "splashd_duplicate_of": "\(duplicate.duplicateOf)",
                ])
            case .alreadyThere:
                settle(session, pick, .imported, photoId: identity.photoId)
            }
        } catch {
            unlink(final)
            settle(session, pick, .failed, detail: "\(error)")
        }
        return nil
    }

    /// A Google failure that stops the session (true) or passes (false: tried again later).
    private func handle(_ error: GoogleFailure, _ session: GoogleSessionRow) -> Bool {
        switch error {
        case .unreachable, .local:
            logger.warning("Google Photos import waits: \(error)", metadata: ["splashd_op": "google"])
            return false
        default:
            finish(session, .failed, detail: error.description)
            return true
        }
    }

    private func finish(_ session: GoogleSessionRow, _ state: GoogleSessionRow.State, detail: String?) {
        do {
            try store.write { db in try GooglePickRows.setState(db, id: session.sessionId, state, detail: detail, now: Date()) }
        } catch {
            logger.error("cannot record the picking session's end: \(error)", metadata: ["splashd_op": "google"])
        }
        written.signal()
        logger.notice("Google Photos picking session \(state.rawValue)", metadata: [
            "splashd_op": "google", "splashd_session": "\(session.sessionId)", "splashd_reason": "\(detail ?? "")",
        ])
    }

    private func settle(_ session: GoogleSessionRow, _ pick: GooglePickRow, _ state: GooglePickRow.State, photoId: String? = nil, detail: String? = nil) {
        do {
            try store.write { db in
                try GooglePickRows.settle(db, sessionId: session.sessionId, itemId: pick.itemId, state, photoId: photoId, detail: detail)
            }
        } catch {
            logger.error("cannot record a pick: \(error)", metadata: ["splashd_op": "google"])
        }
        written.signal()
    }

    private func report(_ session: GoogleSessionRow, current: String?) {
        guard let counts = try? store.read({ db in try GooglePickRows.counts(db, sessionId: session.sessionId) }) else { return }
        progress(ImportProgress(
            root: "google:" + session.sessionId, total: counts.total, done: counts.done, imported: counts.imported,
            duplicates: counts.duplicates, failed: counts.failed, current: current))
    }

    private func read<T: Sendable>(_ body: @Sendable (Database) throws -> T) throws(GoogleFailure) -> T {
        do {
            return try store.read(body)
        } catch {
            throw .local("the store failed: \(error)")
        }
    }

    /// Items by their id (the first of an id Google listed twice).
    static func byId(_ items: [PickerAPI.Item]) -> [String: PickerAPI.Item] {
        Dictionary(items.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    static func metadata(_ item: PickerAPI.Item) -> String? {
        var fields: [String: String] = ["google_media_item": item.id]
        if let camera = item.camera { fields["camera"] = camera }
        if let filename = item.filename { fields["filename"] = filename }
        if let mime = item.mimeType { fields["mime_type"] = mime }
        return (try? JSONEncoder().encode(fields)).map { String(decoding: $0, as: UTF8.self) }
    }
}
