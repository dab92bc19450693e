import Foundation
import Shared
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
    /// Unsplash takes requests again (an hour after the first request of the hour, at the latest); one
    /// never run is the rate-limit error with the same time; `refresh` asks for fresh results only.
    @Test func overTheBudgetASearchAnswersFromTheStoreWithTheReason() async throws {
        let devstack = try Devstack.require()
        try await SplashdFixture.run { fixture in
            let daemon = try await fixture.splashd(.init(sources: true))
            let client = daemon.client
            let firstRequestBy = Date()
            let live = try await client.send(PhotosSearchRequest(query: "river", perPage: 5))
            try await devstack.knobs(["unsplash_hourly_budget": 0])
            fixture.onCleanup { try? await devstack.knobs(["unsplash_hourly_budget": 5000]) }
            let kept = try await client.send(PhotosSearchRequest(query: "river", perPage: 5))
            #expect(kept.stale && kept.photos.map(\.id) == live.photos.map(\.id))
            #expect(kept.staleReason == "Unsplash's hourly request limit is used up")
            let retryAt = try #require(kept.retryAt)
            #expect(retryAt >= firstRequestBy.addingTimeInterval(3600 - 1) && retryAt <= Date().addingTimeInterval(3600))
            await #expect { try await client.send(PhotosSearchRequest(query: "river", perPage: 5, refresh: true)) } throws: {
                ($0 as? RPCError)?.kind == .rateLimited
            }
            await #expect { try await client.send(PhotosSearchRequest(query: "never run", perPage: 5)) } throws: { error in
                let error = error as? RPCError
                return error?.kind == .rateLimited && error?.message.contains("has room again within") == true
                    && (error?.data?.retryAfter ?? 0) > 3500
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
    /// captive portal does), leaves the results seen before, with the reason; the store is unchanged.
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
            try await devstack.faults(fault)
            fixture.onCleanup { try? await devstack.clearFaults() }
            let kept = try await client.send(PhotosSearchRequest(query: "canyon", perPage: 5))
            #expect(kept.stale && kept.photos.map(\.id) == live.photos.map(\.id) && kept.retryAt == nil)
            #expect(kept.staleReason?.isEmpty == false, "\(String(describing: kept.staleReason))")
            #expect(try await client.send(StatusRequest()).library.photos == photos)
            await #expect(throws: RPCError.self) { try await client.send(PhotosSearchRequest(query: "canyon", perPage: 5, refresh: true)) }
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
