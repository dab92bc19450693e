import Control
import GooglePhotos
import OAuth
import Shared

/// The Google capability's methods: google.*.
enum GoogleRoutes {
    static func register(into router: inout Router, state: DaemonState, google: GoogleCapability?) {
        @Sendable func authorization() throws(GoogleFailure) -> GoogleAuthorization {
            guard let authorization = google?.authorization else { throw .notConfigured }
            return authorization
        }
        @Sendable func status(_ authorization: GoogleAuthorization) async -> GoogleStatus {
            let status = await authorization.status
            return GoogleStatus(
                configured: true, connected: status.connected, scope: status.scope, expiresAt: status.expiresAt,
                connectedAt: status.connectedAt, endedBecause: status.endedBecause)
        }

        router.register(GoogleConnectRequest.self) { _, _ in
            let started = try await authorization().connectStart()
            return BrowserFlowStart(flow: started.id, url: started.url, redirectUri: started.redirectURI, expiresAt: started.expiresAt)
        }
        router.register(GoogleConnectFinishRequest.self) { request, _ in
            let authorization = try authorization()
            _ = try await authorization.connectFinish(flow: request.flow, pasted: request.callbackUrl, wait: .seconds(request.waitSeconds ?? 60))
            return await status(authorization)
        }
        router.register(GoogleStatusRequest.self) { request, _ in
            guard let authorization = google?.authorization else { return GoogleStatus(configured: false, connected: false) }
            if request.refresh == true { try await authorization.refresh() }
            return await status(authorization)
        }
        router.register(GoogleDisconnectRequest.self) { _, _ in
            GoogleDisconnectResult(disconnected: true, googleNotified: try await authorization().disconnect())
        }
        router.register(GooglePickRequest.self) { _, _ in
            guard let picks = google?.picks else { throw GoogleFailure.notConfigured }
            return try await picks.start(accountId: state.actingAccount)
        }
        router.register(GooglePicksRequest.self) { request, _ in
            guard let picks = google?.picks else { throw GoogleFailure.notConfigured }
            return try await picks.status(session: request.session, waitingUpTo: .seconds(request.waitSeconds ?? 0))
        }
    }
}
