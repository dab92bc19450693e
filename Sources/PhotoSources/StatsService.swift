import Foundation
import Shared

extension SearchService {
    /// `GET /photos/<id>/statistics?resolution=days&quantity=30`.
    public func stats(_ request: PhotosStatsRequest) async throws(SourceError) -> PhotoStatsResult {
        let remoteID = String(request.id.dropFirst("unsplash:".count))
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-_")
        let response = try await unsplashGet(
            "/photos/\(remoteID.addingPercentEncoding(withAllowedCharacters: allowed) ?? remoteID)/statistics",
            query: [("resolution", "days"), ("quantity", "30")])
        struct Wire: Decodable {
            struct Series: Decodable {
                struct Historical: Decodable {
                    var change: Int?
                    var values: [DailyValue]?
                }
                var total: Int?
                var historical: Historical?
            }
            var views: Series?
            var downloads: Series?
        }
        let wire = try sourceHTTP.decode(Wire.self, response, service: SourceHTTP.unsplash)
        func series(_ s: Wire.Series?) -> StatSeries {
            let values = s?.historical?.values ?? []
            return StatSeries(total: s?.total ?? 0, change: s?.historical?.change ?? values.reduce(0) { $0 + $1.value }, values: values)
        }
        return PhotoStatsResult(id: request.id, views: series(wire.views), downloads: series(wire.downloads))
    }
}
