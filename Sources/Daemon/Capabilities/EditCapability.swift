import Editing
import Foundation
import Library
import Pictures
import Logging
import Shared
import Store
import Support
import Sync

/// Filters, previews and edits: libvips renders beside the original; the outbox uploads to Storage.
struct EditCapability: Sendable {
    let studio: EditStudio
    /// Draws a preview beside its original for a terminal (nil: previews are JPEG bytes only).
    let pictures: PictureCapability?
    let logger: Logger

    /// A preview's JPEG, and with `terminal` the original and the preview drawn, each in that room.
    func preview(photoId: String, steps: [FilterStep], size: Int, terminal: TerminalSpec?) async throws -> EditPreviewResult {
        guard let terminal, let pictures else {
            let rendered = try await studio.preview(photoId: photoId, steps: steps, size: size)
            return EditPreviewResult(jpeg: rendered.jpeg, width: rendered.width, height: rendered.height)
        }
        let (rendered, original) = try await studio.previewBeside(photoId: photoId, steps: steps, size: size)
        let before = try await pictures.draw(file: original.path, copy: nil, fetched: false, for: terminal)
        let after = try await pictures.renderer.draw(encoded: rendered.jpeg, for: terminal)
        return EditPreviewResult(
            jpeg: rendered.jpeg, width: rendered.width, height: rendered.height,
            original: PhotoPicture(id: photoId, text: before.text, columns: before.columns, rows: before.rows, from: .library, path: original.path,
                mode: terminal.mode),
            filtered: PhotoPicture(
                id: photoId, text: after.text, columns: after.columns, rows: after.rows, from: .library, path: original.path,
                mode: terminal.mode))
    }

    /// Renders and saves an edit, queued for upload (the studio announces it), with one log line with
    /// how long it took.
    func create(photoId: String, steps: [FilterStep], accountId: String) async throws -> EditSummary {
        let started = ContinuousClock.now
        let edit = try await studio.create(photoId: photoId, steps: steps, accountId: accountId)
        logger.info("edit saved", metadata: [
            "splashd_op": "edit", "splashd_photo": "\(photoId)", "splashd_edit": "\(edit.id)",
            "splashd_duration_ms": "\(started.millisecondsElapsed)",
        ])
        return try studio.summary(of: edit)
    }

    /// Removes an edit here, its removal queued for the server when the server had it.
    func remove(editId: String, accountId: String) throws -> EditDeleteResult {
        switch try studio.remove(editId: editId.lowercased(), accountId: accountId) {
        case .alreadyRemoved:
            return EditDeleteResult(editId: editId, changed: false, queued: false)
        case .removed(let queued, _, _):
            return EditDeleteResult(editId: editId, changed: true, queued: queued)
        }
    }

    /// The studio fetches a missing original through the image queue, when online.
    static func make(
        config: DaemonConfig, store: Store, directories: DaemonDirectories, images: ImageCapability?, network: NetworkGate,
        announce: Announcements, pictures: PictureCapability? = nil, logger: Logger
    ) -> EditCapability {
        let editor = ImageEditor(limits: .init(maxPixels: config.imagesMaxMegapixels * 1_000_000, jpegQuality: config.editsJPEGQuality))
        let studio = EditStudio(
            store: store, editor: editor, dataDirectory: directories.data, cacheDirectory: directories.cache, announce: announce,
            fetchOriginal: { photoId in
                guard let images else { throw DaemonFailure.originalNotHereOffline(id: photoId) }
                // Its image host is asked, whatever the backend's state (a host known down says so at once).
                do throws(ImageFailure) {
                    try await images.queue.fetchNow(photoId: photoId)
                } catch {
                    throw WireErrors.image(error, photoId: photoId, forEdit: true)
                }
            })
        return EditCapability(studio: studio, pictures: pictures, logger: logger)
    }
}
