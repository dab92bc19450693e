/// Photos of followed feeds whose thumbnail is wanted in the cache, oldest wish first. Bounded: past
/// `backlog` the oldest wishes are dropped (a feed refresh asks again). The queue fetches them after
/// every library file, in the slots left free.
struct ThumbnailWishList {
    static let backlog = 2000

    private(set) var photoIds: [String] = []

    mutating func add(_ wished: [String]) {
        let known = Set(photoIds)
        photoIds += wished.filter { !known.contains($0) }
        if photoIds.count > Self.backlog { photoIds.removeFirst(photoIds.count - Self.backlog) }
    }

    func first(_ count: Int) -> [String] { count > 0 ? Array(photoIds.prefix(count)) : [] }

    mutating func remove(_ photoId: String) { photoIds.removeAll { $0 == photoId } }
}
