import Connectivity
import Foundation
import HTTP
import Shared
import Synchronization

/// GET requests to the photo APIs: query encoding, status classification, both error body shapes, and
/// Unsplash's hourly budget (`X-Ratelimit-Remaining`, and when it has room again).
final class SourceHTTP: Sendable {
    /// The services' names, as messages and `lastFailure` name them.
    static let unsplash = "Unsplash"
    static let nasa = "NASA's library"

    let http: HTTPClient
    private let remaining = Mutex<Int?>(nil)
    private let budgetWindow = Mutex(HourlyWindow())
    /// Each service's failure, from its last request that failed, until one succeeds.
    private let failures = Mutex<[String: SourceError]>([:])

    /// Told of each service's answers and failures, for `status` and for whoever waits on a service.
    let health: ServiceHealth?

    init(http: HTTPClient, health: ServiceHealth? = nil) {
        self.http = http
        self.health = health
    }

    /// Whether the service is worth a request now (not known down, or due to be tried again).
    func usable(_ service: String) -> Bool {
        health?.usable(service) ?? true
    }

    var unsplashRemaining: Int? { remaining.withLock { $0 } }

    /// Why the service's last request failed; nil once one succeeded (or none was made), and nil once
    /// an hourly budget it was over has room again (no reason any more). A failure with a `retryAt` is
    /// the budget still used up.
    func lastFailure(of service: String, now: Date = Date()) -> SourceError? {
        guard let failure = failures.withLock({ $0[service] }) else { return nil }
        if let retryAt = failure.retryAt, retryAt <= now { return nil }
        return failure
    }

    /// `hourlyBudget`: the request counts against the service's hourly budget (Unsplash's API).
    func get(
        _ url: String, query: [(String, String)], headers: [(String, String)], service: String, hourlyBudget: Bool = false
    ) async throws(SourceError) -> HTTPResponse {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let encoded = query.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed) ?? $0.1)" }.joined(separator: "&")
        let response: HTTPResponse
        if hourlyBudget { budgetWindow.withLock { $0.record(Date()) } }
        do {
            response = try await http.send(HTTPRequest(
                url: encoded.isEmpty ? url : url + "?" + encoded, headers: headers + [("Accept", "application/json")], timeout: .seconds(20)))
        } catch {
            throw failed(SourceError.from(error, service: service), service: service)
        }
        do throws(SourceError) {
            return try classify(response, service: service, hourlyBudget: hourlyBudget)
        } catch {
            throw failed(error, service: service)
        }
    }

    /// A file's size as its host answers a HEAD request; nil when it does not say or cannot be asked (a
    /// CDN's silence is not the service failing).
    func contentLength(_ url: String) async -> Int64? {
        guard let response = try? await http.send(HTTPRequest(method: "HEAD", url: url, timeout: .seconds(5))),
              (200..<300).contains(response.status) else { return nil }
        return response.headers["Content-Length"].flatMap { Int64($0) }
    }

    /// Remembers the failure as the service's, unless it is about the thing asked for (a 404: that
    /// photo or topic does not exist) rather than the service.
    private func failed(_ error: SourceError, service: String) -> SourceError {
        if case .refused(404, _) = error {
            health?.succeeded(service)
            return error
        }
        failures.withLock { $0[service] = error }
        health?.failed(service, reason: error.description)
        return error
    }

    private func classify(_ response: HTTPResponse, service: String, hourlyBudget: Bool) throws(SourceError) -> HTTPResponse {
        if let value = response.headers["X-Ratelimit-Remaining"].flatMap(Int.init) {
            remaining.withLock { $0 = value }
        }
        let text = String(decoding: response.body.prefix(300), as: UTF8.self)
        switch response.status {
        case 200..<300:
            _ = failures.withLock { $0.removeValue(forKey: service) }
            health?.succeeded(service)
            return response
        case 429, 403 where text.contains("Rate Limit Exceeded"):
            let resetsBy = hourlyBudget ? budgetWindow.withLock { $0.freesARequestBy(now: Date()) } : nil
            throw .rateLimited(.hourlyLimitUsedUp(service: service), resetsBy: resetsBy)
        case 300..<400:
            throw .untrusted(.serviceRedirect(service: service, status: response.status), tooLarge: false)
        case 500..., 408:
            throw .unreachable(.serviceFailed(service: service, status: response.status))
        default:
            throw .refused(status: response.status, message: Self.errorMessage(response.body) ?? text)
        }
    }

    func decode<T: Decodable>(_ type: T.Type, _ response: HTTPResponse, service: String) throws(SourceError) -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(response.body))
        } catch {
            throw failed(.malformed(.serviceAnswerNotJson(service: service)), service: service)
        }
    }

    /// `{"errors":["..."]}` (Unsplash) or `{"reason":"..."}` (NASA).
    static func errorMessage(_ body: [UInt8]) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else { return nil }
        if let errors = object["errors"] as? [String] { return errors.joined(separator: "; ") }
        return object["reason"] as? String
    }
}

/// The times of this daemon's requests against an hourly budget, over the last hour. Whether the
/// service counts a rolling hour or fixed hours, it has room again at the latest an hour after the
/// oldest request of ours it still counts (requests of other clients of the key only start earlier).
struct HourlyWindow {
    private var times: [Date] = []
    /// Enough for Unsplash's production budget (5,000 an hour); older entries add nothing.
    static let capacity = 5_000

    mutating func record(_ time: Date) {
        times.removeAll { time.timeIntervalSince($0) >= 3600 }
        if times.count >= Self.capacity { times.removeFirst(times.count - Self.capacity + 1) }
        times.append(time)
    }

    func freesARequestBy(now: Date) -> Date {
        let oldest = times.first { now.timeIntervalSince($0) < 3600 } ?? now
        return oldest.addingTimeInterval(3600)
    }
}
