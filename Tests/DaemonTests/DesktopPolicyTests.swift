import CLIText
@testable import Daemon
import Foundation
@testable import Desktop
import Shared
@testable import SplashCtlCommands
import Sync
import Testing

/// What the desktop's word holds back, as the config asks, and how status says it.
@Suite struct DesktopPolicyTests {
    @Test func aMeteredNetworkHoldsBulkTransfersOrAllOfSyncOrNothing() {
        var config = DaemonConfig()
        let metered = DesktopConditions(bus: true, metered: true, onBattery: false)
        #expect(DesktopCapability.holds(for: metered, config) == BackgroundGate.Holds(transfers: .metered))
        config.onMetered = .pause
        #expect(DesktopCapability.holds(for: metered, config) == BackgroundGate.Holds(transfers: .metered, sync: .metered))
        config.onMetered = .ignore
        #expect(DesktopCapability.holds(for: metered, config) == BackgroundGate.Holds())
        // Unknown is not metered: a machine without NetworkManager behaves as today.
        #expect(DesktopCapability.holds(for: DesktopConditions(bus: true), DaemonConfig()) == BackgroundGate.Holds())
    }

    @Test func theBatteryOrPowerSaverHoldsBackgroundWorkUnlessIgnored() {
        var config = DaemonConfig()
        #expect(DesktopCapability.holds(for: DesktopConditions(bus: true, onBattery: true), config).background == .onBattery)
        #expect(DesktopCapability.holds(for: DesktopConditions(bus: true, onBattery: false, powerSaver: true), config).background == .powerSaver)
        config.onBattery = .ignore
        #expect(DesktopCapability.holds(for: DesktopConditions(bus: true, onBattery: true, powerSaver: true), config).background == .powerSaver)
        config.onPowerSaver = .ignore
        #expect(DesktopCapability.holds(for: DesktopConditions(bus: true, onBattery: true, powerSaver: true), config).background == nil)
    }

    @Test func theGateCountsSyncAsOfflineWhileHeldOrAsleep() {
        let gate = BackgroundGate()
        #expect(gate.allowsSync && gate.allowsTransfers && gate.allowsBackgroundWork)
        #expect(gate.update { $0.asleep = true })
        #expect(!gate.allowsSync && gate.allowsTransfers)
        #expect(!gate.update { $0.asleep = true }, "the same holds are no change")
        gate.update { $0 = BackgroundGate.Holds(transfers: .metered, sync: .metered) }
        #expect(!gate.allowsSync && !gate.allowsTransfers && gate.allowsBackgroundWork)
    }

    @Test func statusSaysWhatIsKnownAndWhatWaits() {
        let plain = TerminalStyle(color: false)
        #expect(StatusCommand.desktop(.unknown, plain) == Message.desktopUnknown.text())
        #expect(StatusCommand.desktop(DesktopStatus(bus: true), plain) == Message.desktopSilent.text())
        let metered = DesktopStatus(bus: true, metered: true, onBattery: true, transfersHeld: .metered, backgroundHeld: .onBattery)
        #expect(StatusCommand.desktop(metered, plain) == [
            Message.meteredNetwork.text() + " — " + Message.downloadsWait.text(),
            Message.onBattery.text() + " — " + Message.backgroundWorkWaits.text(),
        ].joined(separator: " · "))
        let paused = DesktopStatus(bus: true, metered: true, onBattery: false, transfersHeld: .metered, syncHeld: .metered)
        #expect(StatusCommand.desktop(paused, plain) == Message.meteredNetwork.text() + " — " + Message.syncPaused.text() + " · " + Message.onMains.text())
    }

    @Test func statusSaysTheRateLimitsInForce() {
        #expect(StatusCommand.bandwidth(BandwidthStatus(maxDownloadRate: 2_000_000))
            == Message.downloadsAtMost("2 MB/s").text() + " · " + Message.uploadsUnlimited.text())
        #expect(StatusCommand.bandwidth(BandwidthStatus(maxUploadRate: 1_500))
            == Message.downloadsUnlimited.text() + " · " + Message.uploadsAtMost(Formatting.rate(1_500)).text())
    }

    /// Tried with no backend configured, status said "offline" while Unsplash answered and searches
    /// worked: now it says there is no account server, and lists the photo services, heard or not yet.
    @Test func statusWithoutAnAccountServerListsThePhotoServices() {
        let plain = TerminalStyle(color: false)
        var status = DaemonStatus.example
        status.connectivity = ConnectivityStatus(state: .offline, text: .noBackendConfigured)
        let text = StatusCommand.render(status, plain, width: nil)
        #expect(text.contains(Message.noAccountServer.text()) && !text.contains(Message.offline.text() + " —"))
        #expect(text.contains(Message.servicesHeading.text()) && text.contains(Message.noServiceAskedYet.text()))
        status.services = [ServiceReachability(service: "api.unsplash.com", state: .up, since: Date())]
        let heard = StatusCommand.render(status, plain, width: nil)
        #expect(heard.contains("api.unsplash.com  " + Message.serviceUp.text()) && !heard.contains(Message.noServiceAskedYet.text()))
    }

    @Test func networkManagersMeteredValuesCountGuessesAsTheirAnswer() {
        #expect([0, 1, 2, 3, 4, 9].map { DesktopConditions.metered(UInt32($0)) } == [nil, true, false, true, false, nil])
    }
}
