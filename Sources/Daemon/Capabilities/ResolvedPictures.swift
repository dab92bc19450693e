import Synchronization
import Web

/// Which file answers for a photo's picture, as the gallery last resolved it from the store, kept until
/// the store's next change to any photo's files (`Store.observePhotoFiles`): a grid asks for the same
/// thumbnails again as it scrolls back and re-renders (a thumbnail is revalidated, not kept, by the
/// browser), and the store's lookup with the choice and a thumbnail's hash cost more than the rest of
/// the answer together (measured: 102 → 50 µs of CPU a thumbnail).
///
/// A generation numbers the store's changes: a lookup notes it before reading the store and is kept
/// only if no change came in between, so a picture resolved from before a change is never kept
/// after it. Bounded by `capacity`: when full it starts again empty, which costs a lookup each.
final class ResolvedPictures: Sendable {
    struct Key: Hashable, Sendable {
        var photoId: String
        var size: GalleryImageSize
    }

    static let capacity = 4096

    private struct State {
        var generation = 0
        var files: [Key: GalleryImageFile] = [:]
    }

    private let state = Mutex(State())

    /// The store's changes seen so far; note it before reading the store for `keep`.
    var generation: Int {
        state.withLock { $0.generation }
    }

    var count: Int {
        state.withLock { $0.files.count }
    }

    func file(for key: Key) -> GalleryImageFile? {
        state.withLock { $0.files[key] }
    }

    /// Keeps `file`, resolved from a store read begun at `generation`, unless the store has changed since.
    func keep(_ file: GalleryImageFile, for key: Key, resolvedAt generation: Int) {
        state.withLock { state in
            guard state.generation == generation else { return }
            if state.files.count >= Self.capacity { state.files.removeAll(keepingCapacity: true) }
            state.files[key] = file
        }
    }

    func forget(_ key: Key) {
        _ = state.withLock { $0.files.removeValue(forKey: key) }
    }

    /// The store changed a photo's files: nothing kept can be trusted.
    func storeChanged() {
        state.withLock { state in
            state.generation &+= 1
            state.files.removeAll()
        }
    }
}
