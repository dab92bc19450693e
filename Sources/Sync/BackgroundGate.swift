import Shared
import Support
import Synchronization

/// Whether work nobody is waiting for may start now. Bulk transfers (library and originals downloads,
/// prefetched thumbnails, originals uploads, Google Photos picks) wait on a metered network; background
/// work on the CPU (perceptual hashes, screen-sized copies, the duplicate scan, prefetch) waits on the
/// battery or power saver; both, and sync itself, wait while the person paused them. What a person
/// asked for right now never asks it. The daemon sets the holds from the desktop's word, the config
/// and the pause; whoever waits on it is rung when a hold ends.
public final class BackgroundGate: Sendable {
    public struct Holds: Sendable, Equatable {
        public var transfers: HoldReason?
        public var background: HoldReason?
        /// Sync itself waits (`network.on_metered = "pause"`): the backend counts as offline to the
        /// push, the pull and the live channel, and changes queue as when offline.
        public var sync: HoldReason?
        /// The machine is going to sleep: the same, until it wakes.
        public var asleep = false
        /// The person paused sync (`SyncPause`): all of it, or whole files only.
        public var paused: PausedWork?

        public init(transfers: HoldReason? = nil, background: HoldReason? = nil, sync: HoldReason? = nil) {
            self.transfers = transfers
            self.background = background
            self.sync = sync
        }
    }

    public enum PausedWork: Sendable, Equatable {
        case all, downloads
    }

    private let holds = Mutex(Holds())
    /// Signalled at every change of the holds.
    public let changed = ChangeSignal()

    public init() {}

    public var current: Holds { holds.withLock { $0 } }

    public var allowsTransfers: Bool {
        let holds = current
        return holds.transfers == nil && holds.paused == nil
    }
    public var allowsBackgroundWork: Bool { current.background == nil }
    public var allowsSync: Bool {
        let holds = current
        return holds.sync == nil && !holds.asleep && holds.paused != .all
    }

    /// Changes the holds; whether they changed.
    @discardableResult
    public func update(_ change: (inout Holds) -> Void) -> Bool {
        let changed = holds.withLock { holds in
            let before = holds
            change(&holds)
            return holds != before
        }
        if changed { self.changed.signal() }
        return changed
    }
}
