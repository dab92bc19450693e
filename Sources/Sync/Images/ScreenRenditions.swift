#if canImport(Glibc)
import Glibc
#endif
import Editing
import Foundation
import Logging
import ServiceLifecycle
import Shared
import Store
import Support
import Synchronization

/// Makes screen-sized copies of large photos (`ScreenRendition`) in the cache, so that a terminal
/// picture of a 24-megapixel photo decodes a 1600-pixel file instead of the whole photo.
///
/// Asked for each library file that arrives and for each picture drawn from a large file that had no
/// copy yet (an imported photo, a file from before copies existed). One file at a time, off the
/// downloads' path (it waits for them, up to a patience, as the duplicate scanner does). The copy is
/// written durably before its row names it, so a crash leaves at most an unlisted file, under the name
/// the photo's next copy takes; a photo deleted meanwhile gets no row and its copy is removed.
public final class ScreenRenditions<C: Clock<Duration>>: Service, Sendable {
    /// A file's copy, or nil when the file is small enough to be drawn from as it is.
    public typealias Maker = @Sendable (_ source: URL) async throws(EditingError) -> RenderedImage?

    private let store: Store
    private let cacheDirectory: String
    private let make: Maker
    private let transfers: TransferPatience<C>
    /// Copies wait while it holds background work (the battery, power saver): a ring when it ends.
    private let background: BackgroundGate
    /// After a copy is recorded: the cache may be over its size now.
    private let recorded: @Sendable () -> Void
    private let logger: Logger
    private let waiting = Mutex<[(photoId: String, source: String)]>([])
    private let wakeup = Wakeup()

    public init(
        store: Store, cacheDirectory: String, make: @escaping Maker, transfersActive: @escaping @Sendable () -> Bool = { false },
        patience: Duration = .seconds(30), background: BackgroundGate = BackgroundGate(), recorded: @escaping @Sendable () -> Void = {},
        clock: C = ContinuousClock(), logger: Logger
    ) {
        self.store = store
        self.background = background
        self.cacheDirectory = cacheDirectory
        self.make = make
        transfers = TransferPatience(transfersActive: transfersActive, patience: patience, clock: clock)
        self.recorded = recorded
        self.logger = logger
    }

    /// `source` (absolute) is the photo's file to copy; a photo already waiting is not asked twice.
    public func wanted(photoId: String, source: String) {
        let added = waiting.withLock { waiting -> Bool in
            guard !waiting.contains(where: { $0.photoId == photoId }) else { return false }
            waiting.append((photoId, source))
            return true
        }
        if added { wakeup.ring() }
    }

    /// The image queue's transfers may all have ended, or a hold on background work.
    public func transfersMayHaveEnded() {
        wakeup.ring()
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            var deadline: C.Instant?
            while !Task.isCancelled {
                await self.wakeup.wait(until: deadline, clock: self.transfers.clock)
                deadline = nil
                while !Task.isCancelled, self.background.allowsBackgroundWork {
                    if let until = self.transfers.holdOffUntil() {
                        deadline = until
                        break
                    }
                    guard let next = self.waiting.withLock({ $0.first }) else { break }
                    await self.copy(photoId: next.photoId, source: next.source)
                    self.waiting.withLock { waiting in waiting.removeAll { $0.photoId == next.photoId } }
                }
            }
        }
    }

    /// Makes and records one photo's copy now; whether it recorded one.
    @discardableResult
    public func copy(photoId: String, source: String) async -> Bool {
        let rendition: RenderedImage
        do throws(EditingError) {
            guard let made = try await make(URL(fileURLWithPath: source)) else { return false }
            rendition = made
        } catch {
            logger.info("no screen copy of \(photoId): \(error)", metadata: ["splashd_op": "images", "splashd_photo": "\(photoId)"])
            return false
        }
        let relative = Self.path(photoId: photoId)
        let absolute = cacheDirectory + "/" + relative
        do {
            try LocalFile.makeDirectories(for: absolute)
            try DurableFile.replace(absolute, with: rendition.jpeg, temporarySuffix: ".screen-tmp")
            let now = Date()
            let checksum = FileDigest.hex(SHA256.hash([UInt8](rendition.jpeg)))
            let kept = try store.write { db -> Bool in
                guard try PulledRows.photoExists(db, id: photoId) else { return false }
                try PhotoFileStore.record(db, PhotoFileStore.File(
                    photoId: photoId, variant: ScreenRendition.variant, path: relative, inLibrary: false,
                    bytes: Int64(rendition.jpeg.count), checksum: checksum, createdAt: now, lastAccessAt: now))
                return true
            }
            guard kept else {
                unlink(absolute)
                return false
            }
        } catch {
            unlink(absolute)
            logger.warning("cannot keep a screen copy of \(photoId): \(error)", metadata: [
                "splashd_op": "images", "splashd_photo": "\(photoId)",
            ])
            return false
        }
        logger.debug("screen copy of \(photoId): \(rendition.width)×\(rendition.height), \(rendition.jpeg.count) bytes", metadata: [
            "splashd_op": "images", "splashd_photo": "\(photoId)",
        ])
        recorded()
        return true
    }

    /// `images/<source>/<id>.screen.jpg`, relative to the cache directory, beside the photo's thumbnail.
    static func path(photoId: String) -> String {
        let parts = photoId.split(separator: ":", maxSplits: 1).map(String.init)
        let library = ImagePaths.library(
            source: parts.first ?? "", remoteId: parts.count > 1 ? parts[1] : photoId, variant: ScreenRendition.variant)
        return ImagePaths.cache(forLibrary: library)
    }
}
