import Foundation
import Shared
import SplashClient
import Testing
import TestSupport

@Suite(.serialized, .devstack(photos: 500)) struct FeedTests {
    func waitForPhotos(_ client: SplashClient, _ count: Int) async throws -> [FeedInfo] {
        try await eventually(tries: 200, every: .milliseconds(100)) {
            try await client.send(FeedsListRequest()).feeds
        } until: { feeds in feeds.allSatisfy { $0.photos >= count && $0.refreshedAt != nil } }
    }

    @Test func followedFeedsAreFilledAndCanBeUnfollowed() async throws {
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.init(sources: true))
            let client = daemon.client
            let topic = try #require(try await client.send(TopicsListRequest()).topics.first).slug
            _ = try await client.send(FeedsFollowRequest(feed: FeedKey(kind: .topic, value: topic), keep: 8))
            _ = try await client.send(FeedsFollowRequest(feed: FeedKey(kind: .search, value: "mars", source: .nasa), keep: 5))
            _ = try await client.send(FeedsFollowRequest(feed: FeedKey(kind: .topic, value: topic), keep: 8))
            let feeds = try await waitForPhotos(client, 5)
            #expect(feeds.count == 2, "following twice is one feed")
            #expect(feeds.first { $0.feed.kind == .topic }?.photos == 8)
            #expect(feeds.first { $0.feed.kind == .search }?.photos == 5)

            // Their thumbnails come into the cache (no sign-in needed), never into the library.
            let usage = try await eventually(tries: 200) { try await client.send(CacheStatusRequest()) } until: { $0.cacheFiles >= 13 }
            #expect(usage.cacheFiles == 13 && usage.libraryFiles == 0, "\(usage)")
            let feedPhoto = try #require(try await client.send(PhotosSearchRequest(query: "mars", source: .nasa, perPage: 5)).photos.first)
            let thumb = try #require(try await client.send(PhotosShowRequest(id: feedPhoto.id)).files.first)
            #expect(thumb.variant == "thumb" && thumb.location == .cache && thumb.present)

            let after = try await client.send(FeedsUnfollowRequest(feed: FeedKey(kind: .topic, value: topic)))
            #expect(after.feeds.map(\.feed.kind) == [.search])
            await #expect { try await client.send(FeedsUnfollowRequest(feed: FeedKey(kind: .topic, value: topic))) } throws: {
                ($0 as? RPCError)?.kind == .notFound
            }
            #expect(throws: RPCError.self) { try FeedsFollowRequest(feed: FeedKey(kind: .topic, value: "x", source: .nasa)).validate() }
            #expect(throws: RPCError.self) { try FeedsFollowRequest(feed: FeedKey(kind: .search, value: " "), keep: 5).validate() }
        }
    }

    /// With Unsplash's hour nearly used up, background refreshes wait; what the person asks still runs.
    @Test func backgroundRefreshLeavesTheLastRequestsToThePerson() async throws {
        let devstack = try Devstack.require()
        try await devstack.knobs(["unsplash_hourly_budget": 15])
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.init(sources: true))
            let client = daemon.client
            _ = try await client.send(PhotosSearchRequest(query: "lake", perPage: 1))
            _ = try await client.send(FeedsFollowRequest(feed: FeedKey(kind: .search, value: "forest"), keep: 5))
            try await Task.sleep(for: .seconds(2))
            #expect(try await client.send(FeedsListRequest()).feeds.first?.photos == 0)
            #expect(daemon.process.stderr.contains("feed refresh paused"), "\(daemon.process.stderr)")
            _ = try await client.send(PhotosSearchRequest(query: "forest", perPage: 5))
            try await devstack.knobs(["unsplash_hourly_budget": 5000])
        }
    }
}
