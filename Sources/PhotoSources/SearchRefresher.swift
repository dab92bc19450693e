import Logging
import ServiceLifecycle
import Shared

/// Runs again, in the background and one at a time, the searches the store answered at once
/// (`SearchRefreshQueue`), and announces each fresh page, or why there is none, as a
/// `search.refreshed` event.
public final class SearchRefresher: Service, Sendable {
    private let search: SearchService
    private let announce: @Sendable (SearchRefreshed) -> Void
    private let logger: Logger

    public init(search: SearchService, logger: Logger, announce: @escaping @Sendable (SearchRefreshed) -> Void) {
        self.search = search
        self.announce = announce
        self.logger = logger
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            for await job in self.search.refreshes.jobs {
                await self.refresh(job)
                if Task.isCancelled { break }
            }
        }
    }

    private func refresh(_ job: SearchRefreshQueue.Job) async {
        defer { search.refreshes.finished(job) }
        do {
            let result = try await search.refetch(job.request, accountId: job.accountId)
            announce(SearchRefreshed(request: job.request, result: result, error: nil))
        } catch {
            logger.notice("search not refreshed: \(error)", metadata: ["splashd_op": "search"])
            announce(SearchRefreshed(request: job.request, result: nil, error: error.description))
        }
    }
}
