import Testing
@testable import Web

/// What the image routes read from an address, without a server: the id's escapes, which ids are
/// refused before the store is asked, and the media type a file's name gives.
@Suite struct ImageRouteTests {
    @Test func aPathSegmentIsReadBackFromItsEscapes() {
        #expect(PathSegment.decoded("unsplash%3Aabc") == "unsplash:abc")
        #expect(PathSegment.decoded("unsplash%3aabc") == "unsplash:abc")
        #expect(PathSegment.decoded("unsplash:abc") == "unsplash:abc")
        #expect(PathSegment.decoded("local%3A%C3%A9t%C3%A9") == "local:été")
        #expect(PathSegment.decoded("a%2F..%2Fb") == "a/../b")
        #expect(PathSegment.decoded("a%00b") == "a\0b")
        #expect(PathSegment.decoded("%") == nil && PathSegment.decoded("a%2") == nil && PathSegment.decoded("a%zz") == nil)
        #expect(PathSegment.decoded("%FF%FE") == nil, "not UTF-8")
        #expect(PathSegment.decoded("%252F") == "%2F", "read back once, not twice")
    }

    @Test func anIdWithAPathsMarksIsRefused() {
        for good in ["unsplash:abc", "nasa:PIA12345", "local:0f3a.jpg", "google:AF1Qip-x_y", "unsplash:a.b.c"] {
            #expect(GalleryServer.plausible(id: good), "\(good)")
        }
        for bad in ["abc", ":abc", "unsplash:../x", "unsplash:a/b", "unsplash:a\\b", "unsplash:a\0b", "unsplash:..",
                    "unsplash:" + String(repeating: "a", count: 300)] {
            #expect(!GalleryServer.plausible(id: bad), "\(bad)")
        }
    }

    @Test func theMediaTypeIsTheFileNames() {
        #expect(ImageResponder.mediaType(of: "/d/library/unsplash/a.regular.jpg") == "image/jpeg")
        #expect(ImageResponder.mediaType(of: "/d/a.JPEG") == "image/jpeg")
        #expect(ImageResponder.mediaType(of: "/d/a.png") == "image/png")
        #expect(ImageResponder.mediaType(of: "/d/a.webp") == "image/webp")
        #expect(ImageResponder.mediaType(of: "/d.jpg/noextension") == "application/octet-stream")
        #expect(ImageResponder.mediaType(of: "/d/a.") == "application/octet-stream")
        #expect(ImageResponder.mediaType(of: "") == "application/octet-stream")
    }
}
