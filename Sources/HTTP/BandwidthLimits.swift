import Synchronization

/// Rates that all transfers together keep under (`network.max_download_rate`, `max_upload_rate`),
/// across every client that shares this object. Changed at any time (a reload).
///
/// Downloads draw from one bucket of bytes that fills at the rate (`admit`): a transfer whose bytes
/// find it empty is paused (CURL_WRITEFUNC_PAUSE, libcurl keeps the bytes) and its engine resumes it
/// once the bucket has filled again, the paused ones in turn, so the transfers share the rate. libcurl's
/// own limit per transfer restarts its count every 3 s and lets a transfer catch up when its share
/// grows: 17 % over the rate, measured, where the bucket keeps within 10. Uploads (request bodies
/// libcurl sends from its own copy) get an even share of their rate each as libcurl's limit
/// (CURLOPT_MAX_SEND_SPEED_LARGE), given again within a second of any start or end.
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

    private struct Bucket {
        var rates = Rates()
        /// Bytes that may be taken now; below zero after a chunk larger than what was there (the debt is
        /// paid by waiting).
        var available: Double = 0
        var filledAt = ContinuousClock.now

        /// A tenth of a second's worth, at least a chunk of libcurl's (16 KiB): what a quiet spell saves.
        var capacity: Double { max(Double(rates.download ?? 0) / 10, 16_384) }

        mutating func fill(_ now: ContinuousClock.Instant) {
            guard let rate = rates.download else { return }
            let elapsed = now - filledAt
            filledAt = now
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            available = min(capacity, available + Double(rate) * seconds)
        }
    }

    private let bucket = Mutex(Bucket())
    private let inFlight = Atomic(0)

    public init() {}

    public var current: Rates { bucket.withLock { $0.rates } }

    public func set(_ new: Rates) {
        bucket.withLock { bucket in
            bucket.fill(.now)
            bucket.rates = new
            bucket.available = min(bucket.available, bucket.capacity)
        }
    }

    /// Whether `bytes` just received may be taken now (and takes them from the bucket); false: pause.
    func admit(_ bytes: Int) -> Bool {
        bucket.withLock { bucket in
            guard bucket.rates.download != nil else { return true }
            bucket.fill(.now)
            guard bucket.available > 0 else { return false }
            bucket.available -= Double(bytes)
            return true
        }
    }

    /// How long until a paused download may be resumed: zero when the bucket holds bytes again.
    var untilAdmitting: Duration {
        bucket.withLock { bucket in
            guard let rate = bucket.rates.download, rate > 0 else { return .zero }
            bucket.fill(.now)
            guard bucket.available <= 0 else { return .zero }
            return .nanoseconds(Int64((-bucket.available + 1) / Double(rate) * 1e9))
        }
    }

    /// What one upload may send now: the upload rate split evenly among the transfers in flight (0: no
    /// limit, as libcurl reads it).
    var sendShare: Int64 {
        guard let rate = current.upload else { return 0 }
        return max(1, rate / Int64(max(1, inFlight.load(ordering: .relaxed))))
    }

    func began() { inFlight.add(1, ordering: .relaxed) }
    func ended() { inFlight.subtract(1, ordering: .relaxed) }
}
