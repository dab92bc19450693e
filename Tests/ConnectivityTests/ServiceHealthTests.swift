import Connectivity
import Foundation
import Shared
import Synchronization
import Testing

/// Each service on its own: down when a request fails to reach it, up when it answers, tried again
/// after a backoff or at once after a network change; the list is told only of changes.
@Suite struct ServiceHealthTests {
    @Test func aServiceGoesDownWaitsItsBackoffAndComesBackUp() {
        let heard = Mutex<[[ServiceReachability]]>([])
        let health = ServiceHealth { list in heard.withLock { $0.append(list) } }
        #expect(health.usable("images.unsplash.com"), "never heard of: worth a try")
        health.succeeded("images.unsplash.com")
        health.succeeded("images.unsplash.com")
        #expect(heard.withLock { $0.count } == 1, "up twice is one change")

        health.failed("Unsplash", reason: "cannot reach Unsplash: connection refused")
        #expect(!health.usable("Unsplash") && health.usable("images.unsplash.com"), "one service down, the other goes on")
        let down = health.downReason("Unsplash")
        #expect(down?.state == .down && down?.reason == "cannot reach Unsplash: connection refused")
        let retryAt = try? #require(down?.retryAt)
        #expect(retryAt.map { $0.timeIntervalSinceNow > 10 && $0.timeIntervalSinceNow <= 15 } == true, "15 s first")
        health.failed("Unsplash", reason: "cannot reach Unsplash: connection refused")
        let later = health.downReason("Unsplash")?.retryAt
        #expect(later.map { $0.timeIntervalSinceNow > 25 } == true, "then 30 s")
        #expect(heard.withLock { $0.count } == 2, "the same failure again is no news")

        health.networkChanged()
        #expect(health.usable("Unsplash"), "a network change makes it worth a try at once")
        health.succeeded("Unsplash")
        #expect(health.snapshot.map(\.state) == [.up, .up] && health.snapshot.map(\.service) == ["Unsplash", "images.unsplash.com"])
        #expect(heard.withLock { $0.last?.first { $0.service == "Unsplash" }?.state } == .up)
    }
}
