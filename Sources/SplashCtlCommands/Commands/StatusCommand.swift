import ArgumentParser
import CLIText
import Foundation
import Shared

struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: HelpText.statusAbstract.text())
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await global.run(StatusRequest()) { status, style in
            var text = Self.render(status, style)
            if Self.suggestsSetup(account: status.account.state, setupDone: SetupState.isDone(environment: ProcessInfo.processInfo.environment)) {
                text += "\n" + style.dim(Message.firstTimeSetupHint.text())
            }
            return text
        }
    }

    /// The way in, while it is needed: until setup has run once, and not to someone already signed in
    /// (a daemon configured by its environment or by hand).
    static func suggestsSetup(account: AccountStatus.State, setupDone: Bool) -> Bool {
        !setupDone && account == .signedOut
    }

    static func render(_ status: DaemonStatus, _ style: TerminalStyle, width: Int? = TerminalGraphics.windowSize()?.columns) -> String {
        let name = Message.asName(status.account.username ?? status.account.email ?? "?").text()
        let account: String = switch status.account.state {
        case .signedOut: style.yellow(Message.signedOut.text())
        case .signedIn: style.green(Message.signedIn.text()) + " " + name
        case .signedInOffline: style.yellow(Message.signedInOffline.text()) + " " + name
        }
        // The reason is the daemon's sentence, in the person's language when splashctl knows it.
        let reason = status.connectivity.reasonText()
        let connectivity: String = switch status.connectivity.state {
        case .online: style.green(Message.online.text())
        // With no account server there is nothing to be offline from: the photo services say what answers.
        case .offline where status.connectivity.text == .noBackendConfigured: style.dim(Message.noAccountServer.text())
        case .offline: style.red(Message.offline.text()) + " — \(reason)"
        case .degraded: style.yellow(Message.degraded.text()) + " — \(reason)"
        case .unknown: style.dim(Message.unknown.text()) + " — \(reason)"
        }
        let live: String = switch status.live.state {
        case .live: style.green(Message.liveOn.text())
        case .joining: style.yellow(Message.liveJoining.text())
        case .down: style.yellow(Message.liveDown.text()) + (status.live.reasonText().map { " — \($0)" } ?? "")
        case .off: style.dim(Message.liveOff.text())
        }
        let outbox = status.outbox
        let library = status.library
        var rows: [(Label, String)] = [
            (.account, account),
            (.connectivity, connectivity),
            (.liveChanges, live),
            (.outbox, Message.outboxCounts(pending: outbox.pending, inFlight: outbox.inFlight, rejected: outbox.rejected).text()
                + (outbox.duplicates.map { " · " + Message.duplicatesWaiting($0).text() } ?? "")),
            (.synced, status.lastSyncAt.map { Formatting.relative($0) } ?? Message.notSinceStart.text()),
            (.library, Message.libraryCounts(
                photos: library.photos, liked: library.liked, edited: library.edited, dismissed: library.dismissed).text()),
            (.files, "\(library.files) (\(Formatting.bytes(library.bytes)))"),
            (.socket, status.directories.socket),
            (.state, status.directories.state),
            (.libraryDirectory, status.directories.data),
            (.cache, status.directories.cache),
        ]
        if let clock = status.clock { rows.insert((.clock, Self.clock(clock, style)), at: 4) }
        if let desktop = status.desktop { rows.insert((.thisMachine, Self.desktop(desktop, style)), at: 3) }
        if let pause = status.pause, pause.paused { rows.insert((.pause, PauseCommand.describe(pause, style)), at: 3) }
        if let bandwidth = status.bandwidth, bandwidth.isLimited {
            rows.insert((.bandwidth, Self.bandwidth(bandwidth)), at: rows.firstIndex { $0.0 == .thisMachine }.map { $0 + 1 } ?? 3)
        }
        if let notShared = library.originalsNotShared, notShared > 0 {
            rows.insert((.files, style.yellow(Message.originalsNotShared(notShared).text())), at: rows.firstIndex { $0.0 == .files }.map { $0 + 1 } ?? rows.count)
        }
        let header = style.bold("splashd \(status.version)") + " — "
            + Message.daemonHeader(pid: Int(status.pid), uptime: Formatting.duration(status.uptimeSeconds)).text()
        return ([header, Table.labelled(rows, width: width)] + Self.services(status.services ?? [], style)).joined(separator: "\n")
    }

    /// This device's clock against the server's: in step, or (a minute or more off) behind or ahead, in yellow.
    static func clock(_ clock: ServerClockStatus, _ style: TerminalStyle) -> String {
        guard clock.isFarOff else {
            let precision = clock.uncertaintySeconds < 1 ? "\(Int((clock.uncertaintySeconds * 1000).rounded())) ms" : Formatting.duration(clock.uncertaintySeconds)
            return style.green(Message.clockInStep(precision: precision).text())
        }
        // Whole seconds: an estimate of 599.998 s is ten minutes, not nine.
        let off = Formatting.duration(abs(clock.offsetSeconds).rounded())
        return style.yellow((clock.offsetSeconds > 0 ? Message.clockBehind(off) : Message.clockAhead(off)).text())
    }

    /// What the desktop says of this machine, each with what waits for it, in yellow.
    static func desktop(_ desktop: DesktopStatus, _ style: TerminalStyle) -> String {
        guard desktop.bus else { return style.dim(Message.desktopUnknown.text()) }
        func held(_ said: Message, _ waits: Message?) -> String {
            waits.map { style.yellow(said.text() + " — " + $0.text()) } ?? said.text()
        }
        var parts: [String] = []
        if let metered = desktop.metered {
            let waits: Message? = desktop.syncHeld != nil ? .syncPaused : desktop.transfersHeld != nil ? .downloadsWait : nil
            parts.append(metered ? held(.meteredNetwork, waits) : Message.unmeteredNetwork.text())
        }
        if let onBattery = desktop.onBattery {
            parts.append(onBattery ? held(.onBattery, desktop.backgroundHeld == .onBattery ? .backgroundWorkWaits : nil) : Message.onMains.text())
        }
        if desktop.powerSaver == true {
            parts.append(held(.powerSaverOn, desktop.backgroundHeld == .powerSaver ? .backgroundWorkWaits : nil))
        }
        return parts.isEmpty ? style.dim(Message.desktopSilent.text()) : parts.joined(separator: " · ")
    }

    /// The rate limits in force, each direction's.
    static func bandwidth(_ bandwidth: BandwidthStatus) -> String {
        [
            bandwidth.maxDownloadRate.map { Message.downloadsAtMost(Formatting.rate($0)) } ?? .downloadsUnlimited,
            bandwidth.maxUploadRate.map { Message.uploadsAtMost(Formatting.rate($0)) } ?? .uploadsUnlimited,
        ].map { $0.text() }.joined(separator: " · ")
    }

    /// Each photo service and image host heard from, on its own line (the reason is the daemon's words).
    static func services(_ services: [ServiceReachability], _ style: TerminalStyle) -> [String] {
        guard !services.isEmpty else { return [Message.servicesHeading.text(), "  " + style.dim(Message.noServiceAskedYet.text())] }
        let width = services.map(\.service.count).max() ?? 0
        return [Message.servicesHeading.text()] + services.map { service in
            let name = "  " + service.service.padding(toLength: width, withPad: " ", startingAt: 0) + "  "
            switch service.state {
            case .up: return name + style.green(Message.serviceUp.text())
            case .down:
                return name + style.red(Message.serviceDown.text()) + (service.reason.map { " — \($0)" } ?? "")
                    + (service.retryAt.map { " · " + Message.triedAgain(Formatting.relativeFuture($0)).text() } ?? "")
            }
        }
    }
}
