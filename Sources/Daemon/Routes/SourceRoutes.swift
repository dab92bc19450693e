import Control
import PhotoSources
import Shared

/// `photos.search` and `search.history`.
enum SourceRoutes {
    static func register(into router: inout Router, state: DaemonState, search: SearchService?) {
        router.register(PhotosSearchRequest.self) { request, _ in
            guard let search else { throw RPCError(.offline, "photo sources are not available (no HTTP client)") }
            do throws(SourceError) {
                return try await search.search(request, accountId: state.current.account.userId ?? "")
            } catch {
                throw error.rpcError
            }
        }
        router.register(PhotosRandomRequest.self) { request, _ in
            guard let search else { throw RPCError(.offline, "photo sources are not available (no HTTP client)") }
            do throws(SourceError) {
                return try await search.random(request, accountId: state.current.account.userId ?? "")
            } catch {
                throw error.rpcError
            }
        }
        router.register(TopicsListRequest.self) { request, _ in
            guard let search else { throw RPCError(.offline, "photo sources are not available (no HTTP client)") }
            do throws(SourceError) {
                return try await search.topics(request)
            } catch {
                throw error.rpcError
            }
        }
        router.register(TopicPhotosRequest.self) { request, _ in
            guard let search else { throw RPCError(.offline, "photo sources are not available (no HTTP client)") }
            do throws(SourceError) {
                return try await search.topicPhotos(request, accountId: state.current.account.userId ?? "")
            } catch {
                throw error.rpcError
            }
        }
        router.register(PhotosStatsRequest.self) { request, _ in
            guard let search else { throw RPCError(.offline, "photo sources are not available (no HTTP client)") }
            do throws(SourceError) {
                return try await search.stats(request)
            } catch {
                throw error.rpcError
            }
        }
        router.register(SearchHistoryRequest.self) { request, _ in
            guard let search else { return SearchHistoryResult(searches: []) }
            return try search.history(source: request.source)
        }
    }
}
