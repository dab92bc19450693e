import Editing
import Glibc
import Library
import Shared
import Support
import Sync
import Web

/// The gallery's pictures (`GalleryImages`) from the library's and the cache's files; one not here is
/// fetched now by the image queue, ahead of its order. A picture found here is remembered
/// (`ResolvedPictures`) until the store changes a photo's files.
struct GalleryImageFiles: GalleryImages {
    let library: PhotoLibrary
    let images: ImageCapability?
    let dataDirectory: String
    let cacheDirectory: String
    let resolved: ResolvedPictures

    /// Pictures that the store's changes to photos' files keep true.
    static func following(
        library: PhotoLibrary, images: ImageCapability?, dataDirectory: String, cacheDirectory: String
    ) -> GalleryImageFiles {
        let resolved = ResolvedPictures()
        library.followFileChanges { resolved.storeChanged() }
        return GalleryImageFiles(
            library: library, images: images, dataDirectory: dataDirectory, cacheDirectory: cacheDirectory, resolved: resolved)
    }

    func file(photoId: String, size: GalleryImageSize) async throws -> GalleryImageFile? {
        let key = ResolvedPictures.Key(photoId: photoId, size: size)
        if let known = resolved.file(for: key) {
            // Gone from the disk behind the store's back (a person deleted it): found again, or fetched.
            if access(known.path, F_OK) == 0 { return known }
            resolved.forget(key)
        }
        let generation = resolved.generation
        guard let listed = try files(photoId) else { return nil }
        if let chosen = Self.choose(listed, size) {
            let file = try Self.galleryFile(chosen, immutable: size == .original)
            resolved.keep(file, for: key, resolvedAt: generation)
            return file
        }
        guard let images else {
            throw GalleryPictureUnavailable(words: DaemonText.noPictureHere(id: photoId).english, lasting: false)
        }
        do throws(ImageFailure) {
            if size == .thumb {
                let path = try await images.queue.thumbnailNow(photoId: photoId)
                return try GalleryImageFile(path: path, contentHash: Self.sha256(path), immutable: false)
            }
            try await images.queue.fetchNow(photoId: photoId)
        } catch {
            throw GalleryPictureUnavailable(
                words: DaemonText.noPictureHereBecause(id: photoId, reason: error.message).english, lasting: !error.transient)
        }
        return try Self.choose(files(photoId) ?? [], size).map { try Self.galleryFile($0, immutable: size == .original) }
    }

    func rendering(photoId: String, editId: String) async throws -> GalleryImageFile? {
        guard let file = try files(photoId)?.first(where: { $0.variant == "edit:" + editId }) else { return nil }
        // An edit's rendering is made once and never changes: a changed edit is a new one.
        return try Self.galleryFile(file, immutable: true)
    }

    private func files(_ photoId: String) throws -> [PhotoFileInfo]? {
        try library.files(photoId: photoId, dataDirectory: dataDirectory, cacheDirectory: cacheDirectory)?.filter(\.present)
    }

    /// A thumbnail for the grid, else what is here already (a screen-sized copy, else the file: a
    /// photo imported from a folder has no thumbnail anywhere to fetch); a screen-sized copy for one
    /// photo on a screen, else the file; the file as it came for an original (the library's, else the
    /// largest the cache holds).
    static func choose(_ files: [PhotoFileInfo], _ size: GalleryImageSize) -> PhotoFileInfo? {
        let whole = files.filter { !$0.variant.hasPrefix("edit:") && $0.variant != "thumb" && $0.variant != ScreenRendition.variant }
        let original = whole.first { $0.location == .library } ?? whole.max { $0.bytes < $1.bytes }
        switch size {
        case .thumb: return files.first { $0.variant == "thumb" } ?? files.first { $0.variant == ScreenRendition.variant } ?? original
        case .screen: return files.first { $0.variant == ScreenRendition.variant } ?? original
        case .original: return original
        }
    }

    static func galleryFile(_ file: PhotoFileInfo, immutable: Bool) throws -> GalleryImageFile {
        GalleryImageFile(path: file.path, contentHash: try file.checksum ?? sha256(file.path), immutable: immutable)
    }

    /// A file's hash, read now (a thumbnail's row keeps none); one that cannot be read is a fetch
    /// that did not come.
    static func sha256(_ path: String) throws(ImageFailure) -> String {
        do throws(FileError) {
            return try FileDigest.sha256Hex(path: path)
        } catch {
            throw ImageFailure(message: "\(error)", transient: true)
        }
    }
}
