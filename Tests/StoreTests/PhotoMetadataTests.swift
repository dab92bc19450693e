import Foundation
import Store
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
}
