import Foundation
import Shared
import Store
import SplashClient
import Testing
import TestSupport

/// Searches through the real daemon against devstack's Unsplash and NASA stand-ins.
@Suite(.serialized, .devstack(photos: 500)) struct SearchTests {
    @Test func resultsAreKeptRankedAndNeverDuplicated() async throws {
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.init(sources: true))
            let client = daemon.client
            let first = try await client.send(PhotosSearchRequest(query: "lake", perPage: 10))
            #expect(first.photos.count == 10 && !first.stale && first.total >= 10)
            let photos = try await client.send(StatusRequest()).library.photos
            let again = try await client.send(PhotosSearchRequest(query: "lake", perPage: 10))
            #expect(again.photos.map(\.id) == first.photos.map(\.id))
            #expect(try await client.send(StatusRequest()).library.photos == photos, "a repeated search adds no photo twice")
            let page2 = try await client.send(PhotosSearchRequest(query: "lake", page: 2, perPage: 10))
            #expect(Set(page2.photos.map(\.id)).isDisjoint(with: first.photos.map(\.id)))
            let blue = try await client.send(PhotosSearchRequest(query: "lake", color: "blue", perPage: 30))
            #expect(!blue.photos.isEmpty && blue.total <= first.total)
        }
    }

    @Test func offlineTheSameSearchAnswersFromTheStoreMarkedStale() async throws {
        let devstack = try Devstack.require()
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.init(sources: true))
            let client = daemon.client
            let live = try await client.send(PhotosSearchRequest(query: "mountain", perPage: 5))
            try await devstack.faults(#"[{"path": "/unsplash/*", "action": "reset"}]"#)
            let offline = try await client.send(PhotosSearchRequest(query: "mountain", perPage: 5))
            #expect(offline.stale)
            #expect(offline.photos.map(\.id) == live.photos.map(\.id))
            await #expect { try await client.send(PhotosSearchRequest(query: "never searched", perPage: 5)) } throws: {
                ($0 as? RPCError)?.kind == .offline
            }
            try await devstack.clearFaults()
        }
    }

    /// Over Unsplash's hourly budget, a search run before answers from the store, saying why and by when
    /// Unsplash takes requests again (an hour after the first request of the hour, at the latest), and
    /// queues no refresh; one never run is the rate-limit error with the same time; `refresh` asks for
    /// fresh results only.
    @Test func overTheBudgetASearchAnswersFromTheStoreWithTheReason() async throws {
        let devstack = try Devstack.require()
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.init(sources: true, config: "[search]\nfresh_seconds = 0\n"))
            let client = daemon.client
            let firstRequestBy = Date()
            let live = try await client.send(PhotosSearchRequest(query: "river", perPage: 5))
            try await devstack.knobs(["unsplash_hourly_budget": 0])
            fixture.onCleanup { try? await devstack.knobs(["unsplash_hourly_budget": 5000]) }
            await #expect { try await client.send(PhotosSearchRequest(query: "never run", perPage: 5)) } throws: { error in
                let error = error as? RPCError
                return error?.kind == .rateLimited && error?.message.contains("has room again within") == true
                    && (error?.data?.retryAfter ?? 0) > 3500
            }
            let kept = try await client.send(PhotosSearchRequest(query: "river", perPage: 5))
            #expect(kept.stale && kept.photos.map(\.id) == live.photos.map(\.id))
            #expect(kept.staleReason == "Unsplash's hourly request limit is used up")
            #expect(kept.refreshing == nil, "no refresh while over the budget")
            let retryAt = try #require(kept.retryAt)
            #expect(retryAt >= firstRequestBy.addingTimeInterval(3600 - 1) && retryAt <= Date().addingTimeInterval(3600))
            await #expect { try await client.send(PhotosSearchRequest(query: "river", perPage: 5, refresh: true)) } throws: {
                ($0 as? RPCError)?.kind == .rateLimited
            }
            // Topics too: the list kept, with the reason.
            try await devstack.knobs(["unsplash_hourly_budget": 5000])
            let topics = try await client.send(TopicsListRequest())
            try await devstack.knobs(["unsplash_hourly_budget": 0])
            let keptTopics = try await client.send(TopicsListRequest())
            #expect(keptTopics.stale && keptTopics.topics == topics.topics && keptTopics.retryAt != nil)
        }
    }

    /// A source that fails (HTTP 500), or answers something that is not its JSON (an HTML page, as a
    /// captive portal does): the results seen before answer, with the failure as the reason; the store
    /// is unchanged; `refresh` gets the error.
    @Test(arguments: [
        #"[{"path": "/unsplash/*", "status": 500}]"#,
        #"[{"path": "/unsplash/*", "status": 200, "body": "<html>Sign in to the hotel Wi-Fi</html>", "content_type": "text/html"}]"#,
    ])
    func aFailingSourceLeavesTheResultsSeenBefore(fault: String) async throws {
        let devstack = try Devstack.require()
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.init(sources: true))
            let client = daemon.client
            let live = try await client.send(PhotosSearchRequest(query: "canyon", perPage: 5))
            let photos = try await client.send(StatusRequest()).library.photos
            #expect(photos >= live.photos.count && !live.photos.isEmpty, "the answer's photos count at once: \(photos)")
            try await devstack.faults(fault)
            fixture.onCleanup { try? await devstack.clearFaults() }
            await #expect(throws: RPCError.self) { try await client.send(PhotosSearchRequest(query: "canyon", perPage: 5, refresh: true)) }
            let kept = try await client.send(PhotosSearchRequest(query: "canyon", perPage: 5))
            #expect(kept.stale && kept.photos.map(\.id) == live.photos.map(\.id) && kept.retryAt == nil)
            #expect(kept.staleReason?.contains("Unsplash") == true, "\(String(describing: kept.staleReason))")
            #expect(try await client.send(StatusRequest()).library.photos == photos)
        }
    }

    /// A search run before answers at once from the store and runs again in the background; the
    /// `search.refreshed` event brings the fresh page, and the store keeps it. A refresh that fails
    /// says why in the event, and the next answer carries the reason.
    @Test func aRepeatedSearchAnswersAtOnceAndRefreshesInTheBackground() async throws {
        let devstack = try Devstack.require()
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.init(sources: true, config: "[search]\nfresh_seconds = 0\n"))
            let client = daemon.client
            let watcher = try SplashClient.connect(socketPath: daemon.process.socketPath)
            _ = try await watcher.send(SubscribeRequest(types: ["search.refreshed"]))
            let live = try await client.send(PhotosSearchRequest(query: "glacier", perPage: 5))
            #expect(!live.stale && live.refreshing == nil)
            let kept = try await client.send(PhotosSearchRequest(query: "glacier", perPage: 5))
            #expect(kept.stale && kept.refreshing == true && kept.staleReason == nil)
            #expect(kept.photos.map(\.id) == live.photos.map(\.id) && kept.fetchedAt == live.fetchedAt)
            let refreshed = try #require(try await watcher.firstEvent { if case .searchRefreshed(let refreshed) = $0 { refreshed } else { nil } })
            #expect(refreshed.request.query == "glacier" && refreshed.error == nil)
            let fresh = try #require(refreshed.result)
            // (The wire's times are whole seconds: the fresh page's is not earlier.)
            #expect(!fresh.stale && fresh.fetchedAt >= live.fetchedAt && fresh.photos.map(\.id) == live.photos.map(\.id))
            let after = try await client.send(PhotosSearchRequest(query: "glacier", perPage: 5))
            #expect(after.fetchedAt == fresh.fetchedAt && after.refreshing == true, "the store keeps the fresh page")
            #expect(try #require(try await watcher.firstEvent { if case .searchRefreshed(let refreshed) = $0 { refreshed } else { nil } }).result != nil)

            try await devstack.faults(#"[{"path": "/unsplash/*", "action": "reset"}]"#)
            fixture.onCleanup { try? await devstack.clearFaults() }
            #expect(try await client.send(PhotosSearchRequest(query: "glacier", perPage: 5)).refreshing == true)
            let failed = try #require(try await watcher.firstEvent { if case .searchRefreshed(let refreshed) = $0 { refreshed } else { nil } })
            #expect(failed.result == nil && failed.error?.contains("cannot reach Unsplash") == true, "\(failed)")
            let offline = try await client.send(PhotosSearchRequest(query: "glacier", perPage: 5))
            #expect(offline.stale && offline.staleReason?.contains("cannot reach Unsplash") == true)
        }
    }

    /// A search's photos get their thumbnails in the background, into the cache: with the network cut,
    /// the same search answers from the store and every photo's thumbnail is on this machine.
    @Test func aSearchSeenOnlineIsBrowsableWithItsThumbnailsOffline() async throws {
        let devstack = try Devstack.require()
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.init(sources: true))
            let client = daemon.client
            let live = try await client.send(PhotosSearchRequest(query: "sunset", perPage: 6))
            let ids = live.photos.map(\.id)
            #expect(ids.count == 6)
            func thumbnails() async throws -> Int {
                var present = 0
                for id in ids {
                    let files = try await client.send(PhotosShowRequest(id: id)).files
                    if files.contains(where: { $0.variant == "thumb" && $0.present && $0.location == .cache }) { present += 1 }
                }
                return present
            }
            try await daemon.wait(for: "the page's thumbnails in the cache") { try await thumbnails() == ids.count }
            // Each thumbnail's perceptual hash is the photo's, known before any download (a like of a
            // near-duplicate can be refused).
            let store = try Store(path: daemon.databasePath)
            try await daemon.wait(for: "the thumbnails' perceptual hashes") {
                try store.read { db in try ids.allSatisfy { try PerceptualHashQuery.hash(db, photoId: $0) != nil } }
            }
            try await devstack.faults(#"[{"path": "/unsplash/*", "action": "reset"}, {"path": "/cdn/*", "action": "reset"}]"#)
            fixture.onCleanup { try? await devstack.clearFaults() }
            let offline = try await client.send(PhotosSearchRequest(query: "sunset", perPage: 6))
            #expect(offline.stale && offline.photos.map(\.id) == ids)
            #expect(try await thumbnails() == ids.count)
        }
    }

    @Test func aDismissedPhotoNeverShowsInSearches() async throws {
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.init(sources: true))
            let client = daemon.client
            let first = try await client.send(PhotosSearchRequest(query: "forest", perPage: 5))
            let gone = try #require(first.photos.first).id
            _ = try await client.send(PhotosDismissRequest(id: gone))
            let again = try await client.send(PhotosSearchRequest(query: "forest", perPage: 5))
            #expect(!again.photos.map(\.id).contains(gone))
            #expect(try await client.send(PhotosListRequest(dismissed: true)).photos.map(\.id) == [gone])
        }
    }

    @Test func historyKeepsTheLastTenDistinctSearchesPerSource() async throws {
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.init(sources: true))
            let client = daemon.client
            for n in 0..<12 { _ = try await client.send(PhotosSearchRequest(query: "query \(n)", perPage: 1)) }
            _ = try await client.send(PhotosSearchRequest(query: "query 3", perPage: 1))
            _ = try await client.send(PhotosSearchRequest(query: "mars", source: .nasa, perPage: 2))
            let history = try await client.send(SearchHistoryRequest(source: .unsplash)).searches
            #expect(history.count == 10)
            #expect(history.first?.request.query == "query 3", "a repeated search moves to the top, once")
            #expect(Set(history.map(\.request.query)).count == 10)
            let all = try await client.send(SearchHistoryRequest()).searches
            #expect(all.first?.request.source == .nasa && all.first?.number == 1)
        }
    }

    @Test func nasaSearchesWithYearsAndMedia() async throws {
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.init(sources: true))
            let client = daemon.client
            let result = try await client.send(PhotosSearchRequest(query: "mars", source: .nasa, media: "image", yearFrom: 1990, yearTo: 2030, perPage: 20))
            #expect(!result.photos.isEmpty)
            #expect(result.photos.allSatisfy { $0.id.hasPrefix("nasa:") && $0.source == .nasa })
        }
    }

    /// `photos show` of a NASA photo lists every rendition NASA offers, largest first, each with its
    /// size as the image host answered a HEAD request; splashctl prints them.
    @Test func aNASAPhotoShowsEveryRenditionWithItsSize() async throws {
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.init(sources: true))
            let found = try await daemon.client.send(PhotosSearchRequest(query: "mars", source: .nasa, perPage: 1))
            let id = try #require(found.photos.first?.id)
            let renditions = try #require(try await daemon.client.send(PhotosShowRequest(id: id)).renditions)
            #expect(renditions.map(\.variant) == ["orig", "large", "medium", "small", "thumb"])
            #expect(renditions.allSatisfy { ($0.bytes ?? 0) > 0 && $0.url.hasSuffix("~\($0.variant).jpg") }, "\(renditions)")
            let shown = try await daemon.ctl(["photos", "show", "--verbose", id])
            #expect(shown.status == 0 && renditions.allSatisfy { shown.stdout.contains($0.url) }, "\(shown.stdout)")
            let brief = try await daemon.ctl(["photos", "show", id])
            #expect(brief.status == 0 && brief.stdout.contains(id) && !renditions.contains { brief.stdout.contains($0.url) }, "\(brief.stdout)")
        }
    }

    @Test func overTheRateLimitSaysSo() async throws {
        let devstack = try Devstack.require()
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.init(sources: true))
            let client = daemon.client
            try await devstack.knobs(["unsplash_hourly_budget": 1])
            _ = try? await client.send(PhotosSearchRequest(query: "budget one", perPage: 1))
            await #expect { try await client.send(PhotosSearchRequest(query: "budget two", perPage: 1)) } throws: { error in
                guard let error = error as? RPCError else { return false }
                return error.kind == .rateLimited && error.message.contains("has room again within")
            }
            try await devstack.knobs(["unsplash_hourly_budget": 5000])
        }
    }

    @Test(arguments: [
        PhotosSearchRequest(query: ""), PhotosSearchRequest(query: "   "), PhotosSearchRequest(query: "x", perPage: 0),
        PhotosSearchRequest(query: "x", perPage: 1000), PhotosSearchRequest(query: "x", source: .nasa, perPage: 101),
        PhotosSearchRequest(query: "x", color: "plaid"), PhotosSearchRequest(query: "x", source: .local),
        PhotosSearchRequest(query: String(repeating: "q", count: 201)),
    ])
    func badSearchesAreInvalidInput(request: PhotosSearchRequest) throws {
        #expect(throws: RPCError.self) { try request.validate() }
    }
}

extension PhotosSearchRequest: CustomTestStringConvertible {
    public var testDescription: String { "query '\(query.prefix(10))' \(source?.rawValue ?? "") per_page \(perPage.map(String.init) ?? "-")" }
}
