import Editing
import Foundation
import Pictures
import Shared
import Synchronization

/// Photos drawn for terminals (`photos.picture`): the renderer with its memory tier of decoded pixels,
/// and how often a picture's file was on this machine (the disk tier) or had to be fetched.
final class PictureCapability: Sendable {
    let renderer: TerminalPictures
    private let disk = Mutex((hits: 0, misses: 0))
    /// `pictures.terminal`: nil for `auto`, `.some(nil)` for `none`, else the mode it forces.
    private let configured: TerminalSpec.Mode??

    init(config: DaemonConfig) {
        renderer = TerminalPictures(
            limits: .init(maxPixels: config.imagesMaxMegapixels * 1_000_000), memoryBytes: Int64(config.picturesMemoryMiB) << 20)
        configured = switch config.picturesTerminal {
        case "auto": nil
        case "none": .some(nil)
        default: .some(TerminalSpec.Mode(rawValue: config.picturesTerminal))
        }
    }

    /// The room drawn in: a mode splashctl only detected gives way to `pictures.terminal`; nil when
    /// that is `none` (nothing is drawn).
    func terminal(for spec: TerminalSpec) -> TerminalSpec? {
        guard spec.detected == true, let configured else { return spec }
        guard let mode = configured else { return nil }
        var spec = spec
        spec.mode = mode
        return spec
    }

    /// Draws `file`, or its screen `copy` when that serves; a decode (not a memory hit) counts for the
    /// disk tier: found there, or `fetched`.
    func draw(file: String, copy: String?, fetched: Bool, for terminal: TerminalSpec) async throws(EditingError) -> TerminalPictures.Drawn {
        let drawn = try await renderer.draw(
            file: URL(fileURLWithPath: file), copy: copy.map { URL(fileURLWithPath: $0) }, for: terminal)
        if !drawn.fromMemory { disk.withLock { fetched ? ($0.misses += 1) : ($0.hits += 1) } }
        return drawn
    }

    var tiers: PictureTiers {
        let memory = renderer.usage
        let disk = disk.withLock { $0 }
        return PictureTiers(
            memoryEntries: memory.entries, memoryBytes: memory.bytes, memoryMaxBytes: memory.maxBytes, memoryHits: memory.hits,
            memoryMisses: memory.misses, diskHits: disk.hits, diskMisses: disk.misses)
    }
}
