import ArgumentParser
import Foundation
import Shared

// splashctl's cache commands: what the library and the cache hold, and evicting the cache by hand.

struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache", abstract: "Disk used by the library (kept) and the cache (evicted least-recently-used).",
        subcommands: [CacheShow.self, CachePrune.self], defaultSubcommand: CacheShow.self)
}

struct CacheShow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show library and cache usage.")
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        try await global.run(CacheStatusRequest(), render: Self.render)
    }

    static func render(_ usage: CacheUsage, _ style: TerminalStyle) -> String {
        func files(_ n: Int) -> String { "\(n) file\(n == 1 ? "" : "s")" }
        var lines = [
            "\(style.bold("library")) \(Formatting.bytes(usage.libraryBytes)) in \(files(usage.libraryFiles))  \(style.dim(usage.libraryDirectory))",
            "\(style.bold("cache"))   \(Formatting.bytes(usage.cacheBytes)) in \(files(usage.cacheFiles)) of at most \(Formatting.bytes(usage.maxBytes))  \(style.dim(usage.cacheDirectory))",
        ]
        if usage.downloading > 0 { lines.append("downloading \(files(usage.downloading))") }
        if usage.waiting > 0 { lines.append(style.yellow("\(files(usage.waiting)) waiting to retry after a failure (splashctl photos show ID says why)")) }
        return lines.joined(separator: "\n")
    }
}

struct CachePrune: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "prune", abstract: "Evict cache files now, least recently used first. The library is never touched.")
    @OptionGroup var global: GlobalOptions
    @Option(help: "Keep this many bytes of the most recently used cache files (default 0: empty the cache).") var keep: Int64?

    func validate() throws {
        if let keep, keep < 0 { throw ValidationError("--keep cannot be negative") }
    }

    func run() async throws {
        try await global.run(CachePruneRequest(keepBytes: keep)) { result, _ in
            "removed \(result.removedFiles) file\(result.removedFiles == 1 ? "" : "s") (\(Formatting.bytes(result.removedBytes))); "
                + "the cache holds \(Formatting.bytes(result.cacheBytes))"
        }
    }
}
