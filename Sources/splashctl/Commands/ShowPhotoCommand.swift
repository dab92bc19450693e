import ArgumentParser
import Foundation
import Shared

struct ShowPhoto: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Show one photo: metadata, liked or not, and its files on this machine.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The photo id, e.g. unsplash:Dwu85P9SOIk.") var id: String

    func run() async throws {
        try await global.run(PhotosShowRequest(id: id), render: Self.render)
    }

    static func render(_ photo: PhotoDetail, _ style: TerminalStyle) -> String {
        var lines = [style.bold(photo.id) + (photo.title.map { "  \($0)" } ?? "")]
        if let author = photo.author { lines.append("by \(author)" + (photo.authorUrl.map { "  \(style.dim($0))" } ?? "")) }
        if let description = photo.description, description != photo.title { lines.append(description) }
        if let width = photo.width, let height = photo.height { lines.append("\(width)×\(height)" + (photo.color.map { "  \($0)" } ?? "")) }
        if let created = photo.createdAt { lines.append("taken " + Formatting.absolute(created)) }
        if let tags = photo.tags, !tags.isEmpty { lines.append("tags: " + tags.joined(separator: ", ")) }
        if let exif = photo.exif {
            let camera = [exif.make, exif.model].compactMap { $0 }.joined(separator: " ")
            let settings = [exif.focalLength.map { "\($0) mm" }, exif.aperture.map { "f/\($0)" }, exif.exposureTime.map { "\($0) s" },
                            exif.iso.map { "ISO \($0)" }].compactMap { $0 }.joined(separator: "  ")
            let text = [camera, settings].filter { !$0.isEmpty }.joined(separator: "  ")
            if !text.isEmpty { lines.append("camera: " + text) }
        }
        if let location = photo.location {
            let position = location.latitude.flatMap { lat in location.longitude.map { String(format: "%.4f, %.4f", lat, $0) } }
            lines.append("location: " + [location.name, position].compactMap { $0 }.joined(separator: "  "))
        }
        if let page = photo.pageUrl { lines.append("page: " + page) }
        if let attribution = photo.attribution { lines.append(style.dim(attribution)) }
        for duplicate in photo.duplicates ?? [] {
            lines.append(style.yellow("looks like \(duplicate.id)") + " (\(duplicate.distance) bits apart)")
        }
        lines.append(photo.likedAt.map { "liked " + Formatting.relative($0) } ?? "not liked")
        if let dismissed = photo.dismissedAt { lines.append("dismissed " + Formatting.relative(dismissed)) }
        if photo.files.isEmpty {
            lines.append(style.dim("no local file"))
        }
        for file in photo.files {
            let state = file.present ? file.location.rawValue : style.red("\(file.location.rawValue), missing on disk")
            lines.append("\(file.variant): \(file.path)  \(Formatting.bytes(file.bytes))  \(state)")
        }
        if let download = photo.download {
            switch download.state {
            case .downloading:
                let total = download.total.map { " of \(Formatting.bytes($0))" } ?? ""
                lines.append("downloading: \(Formatting.bytes(download.bytes ?? 0))\(total)")
            case .waiting:
                let next = download.nextAttemptAt.map { ", next try " + Formatting.relativeFuture($0) } ?? ""
                lines.append(style.yellow("download failed \(download.attempts ?? 1)×: \(download.lastError ?? "?")\(next)"))
            }
        }
        return lines.joined(separator: "\n")
    }
}
