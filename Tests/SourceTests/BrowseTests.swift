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
