import Foundation
import Shared
import Testing

/// Every message the protocol defines, encoded and compared with a committed golden file, then
/// decoded back to the same value.
@Suite struct ProtocolGoldenTests {
    @Test(arguments: MethodRegistry.names)
    func requestAndResultMatchGolden(method: String) throws {
        let type = try #require(MethodRegistry.all.first { $0.method == method })
        try check(type)
    }

    private func check<R: RPCRequest>(_ type: R.Type) throws {
        let encoder = JSONCoding.encoder()
        let request = RequestEnvelope(id: .number(7), method: R.method, params: R.example)
        let requestData = try encoder.encode(request)
        try GoldenFile.check(requestData, name: "\(R.method).request")
        let decodedRequest = try JSONCoding.decoder().decode(RequestEnvelope<R>.self, from: requestData)
        #expect(decodedRequest.params == R.example)
        #expect(decodedRequest.method == R.method)

        let response = ResponseEnvelope(id: .string("a-7"), result: R.resultExample)
        let responseData = try encoder.encode(response)
        try GoldenFile.check(responseData, name: "\(R.method).response")
        #expect(try JSONCoding.decoder().decode(ResponseEnvelope<R.Result>.self, from: responseData).result == R.resultExample)
    }

    @Test func errorEnvelopeMatchesGolden() throws {
        let envelope = ErrorEnvelope(
            id: .number(3), error: RPCError(.rateLimited, .sourceRateLimited(why: .hourlyLimitUsedUp(service: "Unsplash"), minutes: 20), retryAfter: 1200))
        let data = try JSONCoding.encoder().encode(envelope)
        try GoldenFile.check(data, name: "error.rate_limited")
        #expect(try JSONCoding.decoder().decode(ErrorEnvelope.self, from: data) == envelope)
    }

    /// An error's sentence as data beside its English: `data.text` holds the sentence's name and the
    /// parts that vary, for clients that render it in their own language.
    @Test func errorWithTextMatchesGolden() throws {
        let envelope = ErrorEnvelope(id: .number(5), error: RPCError(.notFound, .unknownPhoto(id: "unsplash:abc"), field: "id"))
        let data = try JSONCoding.encoder().encode(envelope)
        try GoldenFile.check(data, name: "error.not_found")
        #expect(try JSONCoding.decoder().decode(ErrorEnvelope.self, from: data) == envelope)
    }

    /// `$/cancelRequest` is a notification: no `id` member at all (not `"id": null`, which would ask
    /// for an answer); the request it names is answered `cancelled`.
    @Test func cancelNotificationAndItsAnswerMatchGolden() throws {
        let notification = CancelRequest.notification(cancelling: .number(7))
        let data = try JSONCoding.encoder().encode(notification)
        try GoldenFile.check(data, name: "cancel.notification")
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["id"] == nil && object["method"] as? String == "$/cancelRequest")
        #expect(try JSONCoding.decoder().decode(RequestEnvelope<CancelRequest.Params>.self, from: data).params == CancelRequest.Params(id: .number(7)))

        let answer = ErrorEnvelope(id: .number(7), error: RPCError(.cancelled, .cancelledByClient(method: EditsPreviewRequest.method)))
        let answerData = try JSONCoding.encoder().encode(answer)
        try GoldenFile.check(answerData, name: "error.cancelled")
        #expect(try JSONCoding.decoder().decode(ErrorEnvelope.self, from: answerData) == answer)
    }

    @Test func errorWithoutIDEncodesNullID() throws {
        let data = try JSONCoding.encoder().encode(ErrorEnvelope(id: nil, error: RPCError(.parseError, .notJson(detail: "Unexpected end of file"))))
        try GoldenFile.check(data, name: "error.parse_error")
        #expect(String(decoding: data, as: UTF8.self).contains(#""id":null"#))
    }

    @Test(arguments: [
        Event.connectivityChanged(ConnectivityStatus(state: .offline, text: .backendUnreachable(detail: "no route to the backend"), since: Date(timeIntervalSince1970: 1_795_000_000))),
        .liveChanged(LiveChannelStatus(state: .down, text: .liveHeartbeatUnanswered(seconds: 10))),
        .desktopChanged(.example),
        .pauseChanged(.example),
        .accountChanged(AccountStatus(state: .signedIn, userId: "5d1c8a8e-0000-4000-8000-000000000001", email: "ana@example.com", username: "ana")),
        .outboxChanged(OutboxCounts(pending: 3, inFlight: 1, rejected: 0)),
        .libraryChanged(LibraryCounts(photos: 10, liked: 2, edited: 1, dismissed: 0, files: 4, bytes: 123_456)),
        .photoChanged(PhotoChange(id: "unsplash:Dwu85P9SOIk", change: .liked)),
        .imagesChanged(ImagesProgress(photo: "unsplash:Dwu85P9SOIk", change: .finished, downloading: 3, waiting: 0, finished: 12, bytes: 3_400_000)),
        .importProgress(ImportProgress(
            root: "/home/ana/Pictures", total: 120, done: 40, imported: 37, duplicates: 2, failed: 1, current: "/home/ana/Pictures/tram.jpg")),
        .profileUpdated(.example),
        .usersChanged(UsersChange(count: 211, recent: [RecentUser(username: "ana", createdAt: Date(timeIntervalSince1970: 1_795_000_000))])),
        .searchRefreshed(SearchRefreshed(request: PhotosSearchRequest.example, result: PhotosSearchRequest.resultExample, error: nil)),
        .daemonReloaded,
        .daemonStopping,
        .eventsMissed(count: 12),
    ])
    func eventNotificationMatchesGolden(event: Event) throws {
        let notification = NotificationEnvelope(
            method: EventNotification.method, params: EventNotification(seq: 42, time: Date(timeIntervalSince1970: 1_795_000_000), event: event))
        let data = try JSONCoding.encoder().encode(notification)
        try GoldenFile.check(data, name: "event.\(event.type.rawValue)")
        #expect(try JSONCoding.decoder().decode(NotificationEnvelope<EventNotification>.self, from: data).params == notification.params)
    }

    @Test func describeListsEveryMethodOnce() {
        let names = MethodRegistry.names
        #expect(Set(names).count == names.count)
        for type in MethodRegistry.all {
            let description = MethodRegistry.description(of: type)
            #expect(!description.summary.isEmpty)
            #expect(description.resultExample != .null, "\(description.name) has no result example")
            #expect(description.name.split(separator: ".").count == 2, "\(description.name) is not noun.verb")
        }
    }
}

