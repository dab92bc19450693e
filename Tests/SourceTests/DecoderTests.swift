import Foundation
@testable import PhotoSources
import Shared
import Store
import Testing

/// Payloads shaped as reference/photo-apis.md describes them, including the nulls and gaps.
@Suite struct DecoderTests {
    @Test func anUnsplashPhotoWithNullsDecodes() throws {
        let json = """
            {"id":"Dwu85P9SOIk","created_at":"2016-05-03T11:00:28-04:00","updated_at":"2024-01-01T00:00:00Z","promoted_at":null,
             "width":2448,"height":3264,"color":"#6E633A","blur_hash":null,"description":null,"alt_description":"a lake",
             "urls":{"raw":"https://images.unsplash.com/photo-1","thumb":"https://images.unsplash.com/photo-1?w=200"},
             "links":{"download_location":"https://api.unsplash.com/photos/Dwu85P9SOIk/download?ixid=x"},
             "likes":12,"liked_by_user":false,"user":{"id":"u","username":"ana","name":"Ana Lima","links":{"html":"https://unsplash.com/@ana"}}}
            """
        let photo = try JSONDecoder().decode(UnsplashPhoto.self, from: Data(json.utf8))
        let record = photo.record(fetchedAt: Date(timeIntervalSince1970: 0))
        #expect(record.id == "unsplash:Dwu85P9SOIk")
        #expect(record.title == "a lake", "the alt description stands in for a missing description")
        #expect(record.authorName == "Ana Lima" && record.authorUrl == "https://unsplash.com/@ana")
        #expect(record.colorBucket != nil)
        #expect(record.createdAt != nil, "offsets other than Z parse")
        #expect(record.metadata?.contains("download_location") == true, "kept for the download-tracking call")
    }

    @Test func aNASAItemWithGapsAndHTTPLinksDecodes() throws {
        let json = """
            {"collection":{"version":"1.0","href":"x","items":[
              {"href":"http://images-assets.nasa.gov/image/PIA 1/collection.json",
               "data":[{"nasa_id":"PIA 1","title":"Spaces in the id","media_type":"image","center":"JPL","date_created":"2017-11-16T00:00:00Z"}],
               "links":[{"href":"http://images-assets.nasa.gov/image/PIA 1/PIA 1~thumb.jpg","rel":"preview","render":"image"}]},
              {"data":[{"title":"no id"}]},
              {"href":"y"}],
             "metadata":{"total_hits":3}}}
            """
        let search = try JSONDecoder().decode(NASASearch.self, from: Data(json.utf8))
        let records = search.collection.items.compactMap { NASASearch.record($0, fetchedAt: Date()) }
        #expect(records.map(\.id) == ["nasa:PIA 1"], "items without an id are skipped, ids with spaces kept")
        #expect(records[0].urls?.contains("~thumb.jpg") == true)
        #expect(records[0].authorName == "NASA JPL")
    }

    @Test func errorBodiesOfBothServicesAreRead() {
        #expect(SourceHTTP.errorMessage(Array(#"{"errors":["OAuth error: The access token is invalid"]}"#.utf8)) == "OAuth error: The access token is invalid")
        #expect(SourceHTTP.errorMessage(Array(#"{"reason":"Expected 'q' text search parameter or other keywords."}"#.utf8))?.hasPrefix("Expected") == true)
        #expect(SourceHTTP.errorMessage(Array("Rate Limit Exceeded".utf8)) == nil)
    }

    @Test func theSameSearchHasTheSameKeyWhateverThePage() {
        let one = SearchService.paramsKey(PhotosSearchRequest(query: " blue lake ", color: "blue", page: 1))
        let two = SearchService.paramsKey(PhotosSearchRequest(query: "blue lake", source: .unsplash, color: "blue", page: 3, perPage: 10))
        #expect(one == two)
        #expect(one != SearchService.paramsKey(PhotosSearchRequest(query: "blue lake", color: "red")))
    }
}

/// The rendition the image queue fetches for a variant: the variant's own URL, else the source's nearest.
@Suite struct RenditionTests {
    @Test func theConfiguredVariantOrTheNearestRendition() {
        let unsplash = #"{"raw":"https://x/raw","regular":"https://x/regular","thumb":"https://x/thumb"}"#
        #expect(Renditions.url(unsplash, variant: "regular") == "https://x/regular")
        #expect(Renditions.url(unsplash, variant: "full") == "https://x/raw")
        let nasa = #"{"orig":"https://n/orig","large":"https://n/large","thumb":"https://n/thumb"}"#
        #expect(Renditions.url(nasa, variant: "regular") == "https://n/large")
        #expect(Renditions.url(nil, variant: "regular") == nil)
        #expect(Renditions.url("not json", variant: "regular") == nil)
        #expect(Renditions.url(#"{"thumb":"https://x/t"}"#, variant: "full") == nil)
    }
}
