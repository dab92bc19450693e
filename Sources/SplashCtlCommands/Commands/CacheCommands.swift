import ArgumentParser
import CLIText
import Foundation
import Shared

// splashctl's cache commands: what the library and the cache hold, and evicting the cache by hand.

struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache", abstract: HelpText.cacheAbstract.text(),
        subcommands: [CacheShow.self, CachePrune.self], defaultSubcommand: CacheShow.self)
}

struct CacheShow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: HelpText.cacheShowAbstract.text())
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await global.run(CacheStatusRequest(), render: Self.render)
    }

    static func render(_ usage: CacheUsage, _ style: TerminalStyle) -> String {
        let library = Message.sizeInFiles(size: Formatting.bytes(usage.libraryBytes), files: usage.libraryFiles).text()
        let cache = Message.sizeInFiles(size: Formatting.bytes(usage.cacheBytes), files: usage.cacheFiles).text()
            + " " + Message.ofAtMost(Formatting.bytes(usage.maxBytes)).text()
        let names = [Label.library.text(), Label.cache.text(), Label.memory.text()]
        let width = names.map(\.count).max() ?? 0
        func label(_ name: String) -> String { style.bold(name) + String(repeating: " ", count: width - name.count + 1) }
        var lines = [
            label(names[0]) + library + "  " + style.dim(usage.libraryDirectory),
            label(names[1]) + cache + "  " + style.dim(usage.cacheDirectory),
        ]
        // The pictures' two tiers: decoded pixels in memory, then the files above (or a fetch).
        if let tiers = usage.pictures {
            lines.append(label(names[2]) + Message.memoryTier(
                size: Formatting.bytes(tiers.memoryBytes), pictures: tiers.memoryEntries, limit: Formatting.bytes(tiers.memoryMaxBytes)).text())
            let memoryReads = tiers.memoryHits + tiers.memoryMisses, diskReads = tiers.diskHits + tiers.diskMisses
            if memoryReads > 0 {
                lines.append(Message.pictureHitRates(
                    memory: Self.percent(tiers.memoryHits, of: memoryReads), memoryReads: memoryReads,
                    disk: Self.percent(tiers.diskHits, of: diskReads), diskReads: diskReads).text())
            }
        }
        if usage.downloading > 0 { lines.append(Message.downloadingFiles(usage.downloading).text()) }
        if usage.waiting > 0 { lines.append(style.yellow(Message.filesWaitingToRetry(usage.waiting).text())) }
        return lines.joined(separator: "\n")
    }

    static func percent(_ part: Int, of whole: Int) -> Int {
        whole == 0 ? 0 : Int((Double(part) * 100 / Double(whole)).rounded())
    }
}

struct CachePrune: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune", abstract: HelpText.cachePruneAbstract.text())
    @OptionGroup var global: GlobalOptions
    @Option(help: .text(.cachePruneKeep)) var keep: Int64?

    func validate() throws {
        if let keep, keep < 0 { throw ValidationError(Message.keepCannotBeNegative.text()) }
    }

    func run() async throws {
        try await global.run(CachePruneRequest(keepBytes: keep)) { result, _ in
            Message.pruned(
                files: result.removedFiles, bytes: Formatting.bytes(result.removedBytes), cacheBytes: Formatting.bytes(result.cacheBytes)
            ).text()
        }
    }
}
