#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation
import Logging
import ServiceLifecycle
import Shared
import Store
import Synchronization

/// Watched folders (`splashctl import DIR --watch`, NicePhotoApp's gallery as a live source): new or
/// changed photos are imported as they appear, with the import's own checks (format, size, the same
/// bytes once, near-duplicates skipped).
///
/// inotify watches each folder (and, recursive, each subfolder, new ones as they are made); the kernel's
/// events arrive through a dispatch read source (epoll: no thread of its own, no timer, nothing while
/// nothing happens). A burst (a camera's card copied in) settles for `quiet` before it is imported. The
/// folders are kept in the store with the time their files were last all seen, so what changed while
/// splashd was stopped is imported at its next start, and a queue overflow rescans since then.
final class FolderWatcher: Service, Sendable {
    /// Imports `path` (a folder, recursive or not, or one file), only files changed after `since` if given.
    typealias Importer = @Sendable (_ path: String, _ recursive: Bool, _ since: Date?) async -> Void

    private struct Directory {
        var folder: String
        var path: String
        var recursive: Bool
    }

    private struct Arrival: Hashable {
        var path: String
        var folder: String
        /// A directory (a watched folder, or one made or moved in under a recursive one) is imported
        /// with its subfolders when this is set; a file is imported alone.
        var recursive: Bool
        var rescanSince: Date?
    }

    private struct State {
        var directories: [Int32: Directory] = [:]
        var pending: Set<Arrival> = []
        /// When the oldest pending arrival was seen: files changed before it have all been looked at.
        var pendingSince: Date?
    }

    private let store: Store
    private let importer: Importer
    private let logger: Logger
    private let quiet: Duration
    private let inotify: InotifyHandle?
    private let state = Mutex(State())
    private let wakeup = Wakeup()

    init(store: Store, logger: Logger, quiet: Duration = .milliseconds(500), importer: @escaping Importer) {
        self.store = store
        self.logger = logger
        self.quiet = quiet
        self.importer = importer
        do {
            inotify = try InotifyHandle()
        } catch {
            logger.error("folders cannot be watched: \(error)", metadata: ["splashd_op": "import"])
            inotify = nil
        }
    }

    /// Watches `path` from now on (and across restarts).
    func watch(_ path: String, recursive: Bool) throws {
        guard inotify != nil else { throw DaemonFailure.watchingUnavailable }
        try store.write { db in try WatchedFolderRows.watch(db, path: path, recursive: recursive, now: Date()) }
        unwatchDirectories(of: path)
        try addWatches(folder: path, under: path, recursive: recursive)
        logger.info("watching \(path) for new photos", metadata: ["splashd_op": "import"])
    }

    /// Stops watching `path`; false when it was not watched.
    func unwatch(_ path: String) throws -> Bool {
        guard try store.write({ db in try WatchedFolderRows.unwatch(db, path: path) }) else { return false }
        unwatchDirectories(of: path)
        logger.info("no longer watching \(path)", metadata: ["splashd_op": "import"])
        return true
    }

    func folders() throws -> [WatchedFolder] {
        try store.read { db in try WatchedFolderRows.all(db) }
    }

    func run() async throws {
        guard let inotify else {
            try? await gracefulShutdown()
            return
        }
        let folders = (try? self.folders()) ?? []
        for folder in folders {
            do {
                try addWatches(folder: folder.path, under: folder.path, recursive: folder.recursive)
            } catch {
                logger.warning("cannot watch \(folder.path): \(error)", metadata: ["splashd_op": "import"])
            }
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: inotify.fd, queue: DispatchQueue(label: "splashd.inotify"))
        source.setEventHandler { [self] in collect(inotify.read()) }
        source.resume()
        defer { source.cancel() }
        // What changed while splashd was stopped.
        for folder in folders { arrive(Arrival(path: folder.path, folder: folder.path, recursive: folder.recursive, rescanSince: folder.scannedAt)) }
        await cancelWhenGracefulShutdown { await self.importArrivals() }
    }

    /// Imports what arrived, each burst once it has been quiet for `quiet`.
    private func importArrivals() async {
        while !Task.isCancelled {
            await wakeup.wait(until: nil)
            try? await Task.sleep(for: quiet)
            let (arrivals, since) = state.withLock { state in
                defer { (state.pending, state.pendingSince) = ([], nil) }
                return (state.pending, state.pendingSince)
            }
            guard !arrivals.isEmpty, !Task.isCancelled else { continue }
            for arrival in arrivals.sorted(by: { $0.path < $1.path }) {
                await importer(arrival.path, arrival.recursive, arrival.rescanSince)
            }
            let seen = since ?? Date()
            for folder in Set(arrivals.map(\.folder)) {
                try? store.write { db in try WatchedFolderRows.scanned(db, path: folder, at: seen) }
            }
        }
    }

    private func arrive(_ arrival: Arrival) {
        state.withLock { state in
            state.pending.insert(arrival)
            state.pendingSince = state.pendingSince ?? Date().addingTimeInterval(-1)
        }
        wakeup.ring()
    }

    /// Turns the kernel's events into arrivals (on the read source's queue).
    private func collect(_ events: [InotifyHandle.Event]) {
        for event in events {
            if event.overflowed {
                // Events were lost: every folder is looked at again since it was last all seen.
                for folder in (try? folders()) ?? [] {
                    arrive(Arrival(path: folder.path, folder: folder.path, recursive: folder.recursive, rescanSince: folder.scannedAt))
                }
                continue
            }
            guard let directory = state.withLock({ $0.directories[event.watch] }), !event.name.isEmpty else { continue }
            let path = directory.path + "/" + event.name
            if event.isDirectory {
                guard directory.recursive, event.mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 else { continue }
                try? addWatches(folder: directory.folder, under: path)
                arrive(Arrival(path: path, folder: directory.folder, recursive: true, rescanSince: nil))
            } else if event.mask & UInt32(IN_CLOSE_WRITE | IN_MOVED_TO) != 0, !event.name.hasPrefix(".") {
                arrive(Arrival(path: path, folder: directory.folder, recursive: false, rescanSince: nil))
            }
        }
    }

    /// Watches `path` (the folder itself, or a directory under it), and every directory under it when
    /// recursive.
    private func addWatches(folder: String, under path: String, recursive: Bool = true) throws {
        guard let inotify else { return }
        let watch = try inotify.add(path)
        state.withLock { $0.directories[watch] = Directory(folder: folder, path: path, recursive: recursive) }
        guard recursive else { return }
        for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] where !name.hasPrefix(".") {
            var isDirectory: ObjCBool = false
            let child = path + "/" + name
            // Symbolic links are not followed: a link back up would watch forever.
            guard FileManager.default.fileExists(atPath: child, isDirectory: &isDirectory), isDirectory.boolValue,
                  (try? FileManager.default.destinationOfSymbolicLink(atPath: child)) == nil else { continue }
            try? addWatches(folder: folder, under: child, recursive: true)
        }
    }

    private func unwatchDirectories(of folder: String) {
        let watches = state.withLock { state -> [Int32] in
            let watches = state.directories.filter { $0.value.folder == folder }.map(\.key)
            for watch in watches { state.directories.removeValue(forKey: watch) }
            return watches
        }
        for watch in watches { inotify?.remove(watch) }
    }
}
