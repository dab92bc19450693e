import Synchronization

/// Rates that all transfers together keep under (`network.max_download_rate`, `max_upload_rate`),
/// across every client that shares this object. Changed at any time (a reload).
///
/// Each direction draws from a bucket of bytes that fills at its rate (`admit`). A download whose bytes
/// find the bucket empty is paused (its write callback returns CURL_WRITEFUNC_PAUSE; libcurl keeps the
/// bytes), and so is an upload whose next bytes do not fit (its read callback returns
/// CURL_READFUNC_PAUSE before handing them over). The engine resumes the paused transfers once their
/// bucket has filled again, the longest paused first, so the transfers share the rate. libcurl's own
/// limits per transfer (CURLOPT_MAX_RECV_SPEED_LARGE and _SEND_) restart their count every 3 s and let
/// a transfer catch up when its share grows: 17 % over the rate, measured, where the bucket keeps
/// within 10; and a share split evenly by hand is lost whenever one transfer is idle.
public final class BandwidthLimits: Sendable {
    public struct Rates: Sendable, Equatable {
        /// Bytes a second; nil: no limit.
        public var download: Int64?
        public var upload: Int64?

        public init(download: Int64? = nil, upload: Int64? = nil) {
            self.download = download
            self.upload = upload
        }
    }

    enum Direction: Sendable {
        case download, upload
    }

    private struct Bucket {
        /// Bytes a second; nil: no limit.
        var rate: Int64?
        /// Bytes that may be taken now; below zero after a chunk larger than what was there (the debt is
        /// paid by waiting).
        var available: Double = 0
        var filledAt = ContinuousClock.now

        /// A tenth of a second's worth, at least a chunk of libcurl's (16 KiB): what a quiet spell saves.
        var capacity: Double { max(Double(rate ?? 0) / 10, 16_384) }

        mutating func fill(_ now: ContinuousClock.Instant) {
            guard let rate else { return }
            let elapsed = now - filledAt
            filledAt = now
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            available = min(capacity, available + Double(rate) * seconds)
        }

        mutating func set(_ new: Int64?) {
            fill(.now)
            rate = new
            filledAt = .now
            available = min(available, capacity)
        }

        mutating func admit(_ bytes: Int) -> Bool {
            guard rate != nil else { return true }
            fill(.now)
            guard available > 0 else { return false }
            available -= Double(bytes)
            return true
        }

        mutating func untilAdmitting() -> Duration {
            guard let rate, rate > 0 else { return .zero }
            fill(.now)
            guard available <= 0 else { return .zero }
            return .nanoseconds(Int64((-available + 1) / Double(rate) * 1e9))
        }
    }

    private struct Buckets {
        var download = Bucket()
        var upload = Bucket()

        subscript(direction: Direction) -> Bucket {
            get { direction == .download ? download : upload }
            set { if direction == .download { download = newValue } else { upload = newValue } }
        }
    }

    private let buckets = Mutex(Buckets())

    public init() {}

    public var current: Rates { buckets.withLock { Rates(download: $0.download.rate, upload: $0.upload.rate) } }

    public func set(_ new: Rates) {
        buckets.withLock { buckets in
            buckets.download.set(new.download)
            buckets.upload.set(new.upload)
        }
    }

    /// Whether `bytes` (just received, or about to be sent) may go now, taking them from the direction's
    /// bucket; false: pause the transfer.
    func admit(_ bytes: Int, _ direction: Direction) -> Bool {
        buckets.withLock { $0[direction].admit(bytes) }
    }

    /// How long until a transfer paused in `direction` may be resumed: zero when its bucket holds bytes again.
    func untilAdmitting(_ direction: Direction) -> Duration {
        buckets.withLock { $0[direction].untilAdmitting() }
    }
}
