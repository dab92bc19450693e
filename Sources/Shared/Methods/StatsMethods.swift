import Foundation

/// `photos.stats`: an Unsplash photo's views and downloads over the last 30 days.
public struct PhotosStatsRequest: RPCRequest {
    public typealias Result = PhotoStatsResult
    public static let method = "photos.stats"
    public static let summary = "Views and downloads of an Unsplash photo, per day over the last 30 days, with totals."
    public static let parameters = [ParameterDoc("id", "string", required: true, "An Unsplash photo id (unsplash:...).")]
    public static let errors: [ErrorKind] = [.invalidInput, .notFound, .offline, .rateLimited]
    public static let example = PhotosStatsRequest(id: "unsplash:Dwu85P9SOIk")
    public static let resultExample = PhotoStatsResult(
        id: "unsplash:Dwu85P9SOIk",
        views: StatSeries(total: 4_051_678, change: 123_525, values: [DailyValue(date: "2026-10-23", value: 6483), DailyValue(date: "2026-10-24", value: 1477)]),
        downloads: StatSeries(total: 20_311, change: 512, values: [DailyValue(date: "2026-10-23", value: 31), DailyValue(date: "2026-10-24", value: 12)]))
    public var id: String
    public init(id: String) { self.id = id }
    public func validate() throws(RPCError) {
        try PhotoID.validate(id)
        guard id.hasPrefix("unsplash:") else { throw .invalidInput(.statisticsUnsplashOnly, field: "id") }
    }
}

public struct PhotoStatsResult: Codable, Sendable, Equatable {
    public var id: String
    public var views: StatSeries
    public var downloads: StatSeries
    public init(id: String, views: StatSeries, downloads: StatSeries) {
        self.id = id
        self.views = views
        self.downloads = downloads
    }
}

public struct StatSeries: Codable, Sendable, Equatable {
    public var total: Int
    /// The sum over the days shown.
    public var change: Int
    public var values: [DailyValue]
    public init(total: Int, change: Int, values: [DailyValue]) {
        self.total = total
        self.change = change
        self.values = values
    }
}

public struct DailyValue: Codable, Sendable, Equatable {
    public var date: String
    public var value: Int
    public init(date: String, value: Int) {
        self.date = date
        self.value = value
    }
}
