@testable import Daemon
import Journal
import Logging
import Shared
import Testing

@Suite struct LogFieldsTests {
    @Test(arguments: [
        ("splashd_op", "SPLASHD_OP"), ("http_status", "SPLASHD_HTTP_STATUS"), ("photo-id", "SPLASHD_PHOTO_ID"),
        ("weird.key é", "SPLASHD_WEIRD_KEY__"),
    ])
    func journalFieldNamesAreUppercaseAlphanumericAndPrefixed(key: String, field: String) {
        // The second time from what was kept of the first.
        #expect(LogFields.journalFieldName(key) == field)
        #expect(LogFields.journalFieldName(key) == field)
    }

    @Test(arguments: ["password", "refresh_token", "splashd_access_token", "Authorization", "anon_key", "unsplash_access_key", "client_secret"])
    func secretsAreRedactedWhateverTheCaller(key: String) {
        #expect(LogFields.redacted(key: key, value: "eyJhbGciOi.secret") == "[redacted]")
        #expect(LogFields.redacted(key: key, value: "another.secret") == "[redacted]")
    }

    @Test func ordinaryValuesPass() {
        #expect(LogFields.redacted(key: "splashd_photo", value: "unsplash:abc") == "unsplash:abc")
        #expect(LogFields.redacted(key: "splashd_photo", value: "unsplash:def") == "unsplash:def")
    }

    @Test func prioritiesFollowSyslog() {
        #expect(LogFields.priority(.critical) == 2)
        #expect(LogFields.priority(.error) == 3)
        #expect(LogFields.priority(.warning) == 4)
        #expect(LogFields.priority(.notice) == 5)
        #expect(LogFields.priority(.info) == 6)
        #expect(LogFields.priority(.debug) == 7)
    }

    @Test func autoPicksTheJournalOnlyWhenStderrIsTheJournalStream() {
        #expect(LogTarget.auto.resolved(environment: [:]) == .stderr)
        #expect(LogTarget.auto.resolved(environment: ["JOURNAL_STREAM": "1:2"]) == .stderr)
        #expect(LogTarget.journal.resolved(environment: [:]) == .journal)
    }
}

@Suite struct StatusLineTests {
    @Test func oneLineSummary() {
        var values = DaemonState.Values()
        #expect(StatusLine.make(values) == "connectivity unknown · guest (signed out) · 0 queued")
        values.connectivity = ConnectivityStatus(state: .online, text: .backendAnswers)
        values.account = AccountStatus(state: .signedIn, userId: "u", email: "ana@example.com", username: "ana")
        values.outbox = OutboxCounts(pending: 2, inFlight: 1, rejected: 1)
        values.lastSync = Date(timeIntervalSince1970: 12 * 3600 + 4 * 60)
        #expect(StatusLine.make(values, timeZone: TimeZone(identifier: "UTC")!) == "online · signed in as ana · 3 queued · 1 rejected · synced 12:04")
        values.account.state = .signedInOffline
        values.connectivity = ConnectivityStatus(state: .offline, text: .backendUnreachable(detail: "no route"))
        #expect(StatusLine.make(values, timeZone: TimeZone(identifier: "UTC")!).hasPrefix("offline · signed in as ana (offline)"))
    }

    /// Without an account server nothing is offline; the photo services and what the desktop holds
    /// back say the rest.
    @Test func theSummarySaysThePhotoServicesAndWhatWaits() {
        var values = DaemonState.Values()
        values.connectivity = ConnectivityStatus(state: .offline, text: .noBackendConfigured)
        values.services = [
            ServiceReachability(service: "api.unsplash.com", state: .up, since: Date()),
            ServiceReachability(service: "images-api.nasa.gov", state: .down, reason: "timed out", since: Date()),
        ]
        values.desktop = DesktopStatus(bus: true, metered: true, onBattery: true, transfersHeld: .metered, backgroundHeld: .onBattery)
        #expect(StatusLine.make(values) == "no account server · guest (signed out) · 0 queued · 1/2 photo services answer · "
            + "downloads wait (metered network) · background work waits (on battery)")
        values.desktop?.syncHeld = .metered
        #expect(StatusLine.make(values).contains("sync paused (metered network)") && !StatusLine.make(values).contains("downloads wait"))
    }
}

import Foundation
