import Foundation
import Shared
import SplashClient
import Testing
import TestSupport

@Suite(.serialized, .devstack(photos: 500)) struct BrowseTests {
    @Test func randomPicksAreStoredAndNeverDismissed() async throws {
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.init(sources: true))
            let client = daemon.client
            let one = try await client.send(PhotosRandomRequest())
            #expect(one.photos.count == 1, "count 1 still comes back as a list")
            let many = try await client.send(PhotosRandomRequest(count: 30))
            #expect(many.photos.count == 30)
            let dismissed = try #require(many.photos.first).id
            _ = try await client.send(PhotosDismissRequest(id: dismissed))
            for _ in 0..<5 {
                #expect(!(try await client.send(PhotosRandomRequest(count: 30))).photos.map(\.id).contains(dismissed))
            }
        }
    }

    @Test func topicsAndATopicsPhotosAnswerOfflineToo() async throws {
        let devstack = try Devstack.require()
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.init(sources: true))
            let client = daemon.client
            let topics = try await client.send(TopicsListRequest())
            let topic = try #require(topics.topics.first)
            let photos = try await client.send(TopicPhotosRequest(slug: topic.slug, order: "popular", perPage: 5))
            #expect(photos.photos.count == 5 && !photos.stale)
            try await devstack.faults(#"[{"path": "/unsplash/*", "action": "reset"}]"#)
            let offlineTopics = try await client.send(TopicsListRequest())
            #expect(offlineTopics.stale && offlineTopics.topics == topics.topics)
            let offlinePhotos = try await client.send(TopicPhotosRequest(slug: topic.slug, order: "popular", perPage: 5))
            #expect(offlinePhotos.stale && offlinePhotos.photos.map(\.id) == photos.photos.map(\.id))
            try await devstack.clearFaults()
            #expect(try await client.send(SearchHistoryRequest()).searches.isEmpty, "topic pages are not searches")
            await #expect { try await client.send(TopicPhotosRequest(slug: "no-such-topic")) } throws: { ($0 as? RPCError)?.kind == .notFound }
        }
    }

    /// A topic's page seen before answers at once from the store and is fetched again in the
    /// background, as a search's is: the `search.refreshed` event names it
    /// "topic:<slug>"; `refresh` waits for Unsplash.
    @Test func aTopicsPageSeenBeforeAnswersAtOnceAndRefreshesInTheBackground() async throws {
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.init(sources: true, config: "[search]\nfresh_seconds = 0\n"))
            let client = daemon.client
            let watcher = try SplashClient.connect(socketPath: daemon.process.socketPath)
            _ = try await watcher.send(SubscribeRequest(types: ["search.refreshed"]))
            let topic = try #require(try await client.send(TopicsListRequest()).topics.first)
            let live = try await client.send(TopicPhotosRequest(slug: topic.slug, perPage: 4))
            #expect(!live.stale && live.refreshing == nil && live.query == topic.slug)
            let kept = try await client.send(TopicPhotosRequest(slug: topic.slug, perPage: 4))
            #expect(kept.stale && kept.refreshing == true && kept.query == topic.slug)
            #expect(kept.photos.map(\.id) == live.photos.map(\.id) && kept.fetchedAt == live.fetchedAt)
            let refreshed = try #require(try await watcher.firstEvent { if case .searchRefreshed(let refreshed) = $0 { refreshed } else { nil } })
            #expect(refreshed.request.query == "topic:" + topic.slug && refreshed.error == nil, "\(refreshed)")
            let fresh = try #require(refreshed.result)
            #expect(!fresh.stale && fresh.photos.map(\.id) == live.photos.map(\.id))
            let waited = try await client.send(TopicPhotosRequest(slug: topic.slug, perPage: 4, refresh: true))
            #expect(!waited.stale && waited.refreshing == nil)
            #expect(try await client.send(SearchHistoryRequest()).searches.isEmpty, "topic pages are not searches")
        }
    }

    @Test func statisticsHaveThirtyDailyValuesAndTotals() async throws {
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.init(sources: true))
            let client = daemon.client
            let photo = try #require(try await client.send(PhotosRandomRequest()).photos.first)
            let stats = try await client.send(PhotosStatsRequest(id: photo.id))
            #expect(stats.views.values.count == 30 && stats.downloads.values.count == 30)
            #expect(stats.views.total >= stats.views.change && stats.views.change > 0)
            #expect(stats.views.values.map(\.date) == stats.views.values.map(\.date).sorted())
            await #expect { try await client.send(PhotosStatsRequest(id: "unsplash:no-such-photo")) } throws: { ($0 as? RPCError)?.kind == .notFound }
            #expect(throws: RPCError.self) { try PhotosStatsRequest(id: "nasa:PIA1").validate() }
        }
    }
}
