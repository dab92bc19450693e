import Shared
import Synchronization

/// The searches waiting to run again in the background (`SearchRefresher` runs them).
///
/// A page already waiting or running is not queued twice; at most `capacity` wait, and a search
/// beyond them is answered from the store without a refresh (`refreshing` false), so a person paging
/// fast through old results cannot spend the source's hourly budget in a burst.
final class SearchRefreshQueue: Sendable {
    struct Job: Sendable {
        let request: PhotosSearchRequest
        let accountId: String
        var key: String { SearchRefreshQueue.key(request) }
    }

    static let capacity = 8

    let jobs: AsyncStream<Job>
    private let continuation: AsyncStream<Job>.Continuation
    /// The keys (search and page) waiting or running.
    private let queued = Mutex<Set<String>>([])

    init() {
        (jobs, continuation) = AsyncStream.makeStream(of: Job.self)
    }

    /// Queues a refresh of this search page; false when the queue is full. True, without queueing it
    /// again, when it is already waiting or running.
    func enqueue(_ request: PhotosSearchRequest, accountId: String) -> Bool {
        let key = Self.key(request)
        let accepted = queued.withLock { queued -> Bool in
            if queued.contains(key) { return true }
            guard queued.count < Self.capacity else { return false }
            queued.insert(key)
            return true
        }
        guard accepted else { return false }
        continuation.yield(Job(request: request, accountId: accountId))
        return true
    }

    /// The job ran (or failed): the same page may be queued again.
    func finished(_ job: Job) {
        _ = queued.withLock { $0.remove(job.key) }
    }

    static func key(_ request: PhotosSearchRequest) -> String {
        SearchService.paramsKey(request) + "#\(request.page ?? 1)"
    }
}
