import Foundation

/// Where a photo comes from; the first part of its id (`unsplash:Dwu85P9SOIk`).
public enum PhotoSource: String, Codable, Sendable, CaseIterable {
    case unsplash, nasa, local, google

    /// A file this machine holds (imported from a folder, picked in Google Photos), not one a catalogue
    /// serves: it is never downloaded, and its original goes to Storage for the account's other devices.
    public var isFileHere: Bool { self == .local || self == .google }
}

/// A photo as `photos.list` shows it.
public struct PhotoSummary: Codable, Sendable, Equatable {
    public var id: String
    public var source: PhotoSource
    public var title: String?
    public var author: String?
    public var width: Int?
    public var height: Int?
    public var color: String?
    public var colorBucket: String?
    public var createdAt: Date?
    public var fetchedAt: Date
    public var likedAt: Date?
    public var editCount: Int
    public var dismissedAt: Date?

    public init(
        id: String, source: PhotoSource, title: String? = nil, author: String? = nil, width: Int? = nil,
        height: Int? = nil, color: String? = nil, colorBucket: String? = nil, createdAt: Date? = nil,
        fetchedAt: Date, likedAt: Date? = nil, editCount: Int = 0, dismissedAt: Date? = nil
    ) {
        self.id = id
        self.source = source
        self.title = title
        self.author = author
        self.width = width
        self.height = height
        self.color = color
        self.colorBucket = colorBucket
        self.createdAt = createdAt
        self.fetchedAt = fetchedAt
        self.likedAt = likedAt
        self.editCount = editCount
        self.dismissedAt = dismissedAt
    }
}
