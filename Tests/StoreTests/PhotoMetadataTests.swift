import Foundation
import Shared
@testable import Store
import Testing

/// Every shape `photos.metadata` was written in reads as one `PhotoMetadata`.
@Suite struct PhotoMetadataTests {
    @Test func unsplashDetailsWithNumbersWhereStringsWereExpected() throws {
        let json = #"{"details":true,"exif":{"aperture":2.8,"exposure_time":"1/250","focal_length":35,"iso":"400","make":"FUJIFILM","model":null},"links":{"html":"https://unsplash.com/photos/x"},"location":{"city":"Lisbon","country":"Portugal","position":{"latitude":38.7,"longitude":-9.1}}}"#
        let metadata = try #require(PhotoMetadata.decode(json))
        #expect(metadata.details == true)
        #expect(metadata.exif?.aperture == "2.8" && metadata.exif?.focalLength == "35" && metadata.exif?.iso == 400)
        #expect(metadata.exif?.exposureTime == "1/250" && metadata.exif?.model == nil)
        #expect(metadata.links?["html"] == "https://unsplash.com/photos/x")
        #expect(metadata.location?.position?.latitude == 38.7)
    }

    /// NASA's rows were written from a dictionary, with null for what NASA did not give.
    @Test func nasaAndLocalShapesFromEarlierVersions() throws {
        let nasa = try #require(PhotoMetadata.decode(#"{"center":null,"media_type":"image"}"#))
        #expect(nasa == PhotoMetadata(mediaType: "image"))
        let local = try #require(PhotoMetadata.decode(#"{"format":"jpeg","path":"/home/ana/Pictures/tram.jpg"}"#))
        #expect(local == PhotoMetadata(path: "/home/ana/Pictures/tram.jpg", format: "jpeg"))
    }

    @Test func writtenWithSortedKeysAndReadBack() throws {
        let metadata = PhotoMetadata(links: ["html": "https://example.com"], details: true, center: "JPL", mediaType: "image")
        let json = try #require(metadata.json)
        #expect(json == #"{"center":"JPL","details":true,"links":{"html":"https:\/\/example.com"},"media_type":"image"}"#)
        #expect(PhotoMetadata.decode(json) == metadata)
    }

    @Test func noneOrNotThisShapeIsNil() {
        #expect(PhotoMetadata.decode(nil) == nil)
        #expect(PhotoMetadata.decode("[1, 2]") == nil)
        #expect(PhotoMetadata.decode("not json") == nil)
    }

    /// A photo's renditions, largest first: Unsplash's widths from their URLs (`w=`), the height from
    /// the photo's shape, never wider than the photo; the original at the photo's size; NASA's bytes as
    /// the host told them; the metadata link is not an image.
    @Test func renditionsAreListedLargestFirstWithTheirSizes() {
        let unsplash = PhotoDetailQuery.renditions([
            "thumb": "https://images.unsplash.com/photo-1?ixid=x&w=200", "raw": "https://images.unsplash.com/photo-1?ixid=x",
            "regular": "https://images.unsplash.com/photo-1?w=1080&q=80", "full": "https://images.unsplash.com/photo-1?q=85",
            "small": "https://images.unsplash.com/photo-1?w=400", "huge": "https://images.unsplash.com/photo-1?w=9000",
        ], bytes: [:], width: 4000, height: 3000)
        #expect(unsplash.map(\.variant) == ["raw", "full", "regular", "small", "thumb", "huge"])
        #expect(unsplash.first { $0.variant == "regular" }.map { [$0.width, $0.height] } == [1080, 810])
        #expect(unsplash.first { $0.variant == "thumb" }.map { [$0.width, $0.height] } == [200, 150])
        #expect(unsplash.first { $0.variant == "raw" }.map { [$0.width, $0.height] } == [4000, 3000])
        #expect(unsplash.first { $0.variant == "huge" }?.width == 4000, "never wider than the photo")
        let nasa = PhotoDetailQuery.renditions([
            "orig": "https://images-assets.nasa.gov/image/a/a~orig.jpg", "thumb": "https://images-assets.nasa.gov/image/a/a~thumb.jpg",
            "metadata": "https://images-assets.nasa.gov/image/a/metadata.json",
        ], bytes: ["orig": 4_200_000, "thumb": 12_000], width: nil, height: nil)
        #expect(nasa.map(\.variant) == ["orig", "thumb"] && nasa.map(\.bytes) == [4_200_000, 12_000])
    }
}
