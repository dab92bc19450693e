import Editing
import Library
import Shared
import Store
import Sync

/// Filters, previews and edits: libvips renders beside the original; the outbox uploads to Storage.
struct EditCapability: Sendable {
    let studio: EditStudio

    /// The studio fetches a missing original through the image queue, when online.
    static func make(
        config: DaemonConfig, store: Store, directories: DaemonDirectories, images: ImageCapability?, network: NetworkGate
    ) -> EditCapability {
        let editor = ImageEditor(limits: .init(maxPixels: config.imagesMaxMegapixels * 1_000_000, jpegQuality: config.editsJPEGQuality))
        let studio = EditStudio(
            store: store, editor: editor, dataDirectory: directories.data, cacheDirectory: directories.cache,
            fetchOriginal: { photoId in
                guard let images else { throw RPCError(.offline, "the original of \(photoId) is not on this machine and downloads are unavailable") }
                guard network.isOnline() else {
                    throw RPCError(.offline, "the original of \(photoId) is not on this machine yet and splashd is offline; like it to have it downloaded when the network is back")
                }
                do throws(ImageFailure) {
                    try await images.queue.fetchNow(photoId: photoId)
                } catch {
                    throw RPCError(error.transient ? .offline : .notFound, "cannot download the original of \(photoId): \(error.message)")
                }
            })
        return EditCapability(studio: studio)
    }
}
