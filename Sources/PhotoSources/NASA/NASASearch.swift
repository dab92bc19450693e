import Foundation
import Shared
import Store

/// NASA's Image and Video Library search answer. Only nasa_id, title, media_type, center and
/// date_created are reliably present; hrefs may be http://; ids may contain spaces.
struct NASASearch: Decodable {
    struct Collection: Decodable {
        var items: [Item]
        var metadata: Metadata?
    }

    struct Metadata: Decodable { var total_hits: Int? }

    struct Item: Decodable {
        var href: String?
        var data: [DataEntry]?
        var links: [Link]?
    }

    struct DataEntry: Decodable {
        var nasa_id: String?
        var title: String?
        var description: String?
        var keywords: [String]?
        var date_created: String?
        var center: String?
        var photographer: String?
        var media_type: String?
    }

    struct Link: Decodable {
        var href: String?
        var rel: String?
    }

    var collection: Collection

    /// NASA's hrefs often say http:// for hosts that serve https; splashd speaks TLS to every host but
    /// loopback (a test backend), so the scheme is upgraded rather than the download refused.
    static func secure(_ href: String) -> String {
        guard href.hasPrefix("http://"), let host = URL(string: href)?.host,
              !["127.0.0.1", "localhost", "::1", "[::1]"].contains(host) else { return href }
        return "https://" + href.dropFirst("http://".count)
    }

    /// `GET /asset/<nasa_id>`: every rendition's href, by the name's suffix (`~orig.jpg`, `~large.jpg`, ...).
    struct Asset: Decodable {
        struct Collection: Decodable { var items: [Link] }
        var collection: Collection

        var renditions: [String: String] {
            var urls: [String: String] = [:]
            for href in collection.items.compactMap(\.href).map(NASASearch.secure) {
                let name = (href.removingPercentEncoding ?? href).split(separator: "/").last.map(String.init) ?? ""
                if name == "metadata.json" {
                    urls["metadata"] = href
                } else if let tilde = name.lastIndex(of: "~") {
                    let rendition = name[name.index(after: tilde)...].split(separator: ".").first.map(String.init) ?? ""
                    if !rendition.isEmpty { urls[rendition] = href }
                }
            }
            return urls
        }
    }

    static func record(_ item: Item, fetchedAt: Date) -> PhotoRecord? {
        guard let data = item.data?.first, let id = data.nasa_id, !id.isEmpty else { return nil }
        var urls: [String: String] = [:]
        for link in item.links ?? [] {
            guard let href = link.href.map(secure) else { continue }
            switch link.rel {
            case "preview": urls["thumb"] = href
            case "alternate": urls["regular"] = urls["regular"] ?? href
            case "canonical": urls["orig"] = href
            default: break
            }
        }
        if let collection = item.href { urls["collection"] = collection }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let urlsJSON = (try? encoder.encode(urls)).map { String(decoding: $0, as: UTF8.self) }
        let metadata = PhotoMetadata(center: data.center, mediaType: data.media_type).json
        return PhotoRecord(
            source: .nasa, remoteId: id, title: data.title, description: data.description,
            tags: data.keywords ?? [], authorName: data.photographer ?? data.center.map { "NASA \($0)" },
            urls: urlsJSON, metadata: metadata, createdAt: data.date_created.flatMap(ISO8601.parse), fetchedAt: fetchedAt)
    }
}
