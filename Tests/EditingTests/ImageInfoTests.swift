@testable import Editing
import Foundation
import Testing

@Suite struct ImageInfoTests {
    @Test func exifDatesParseWithOrWithoutLibvipsDescription() {
        let expected = Date(timeIntervalSince1970: 1_563_128_411)  // 2019-07-14 18:20:11 UTC
        #expect(ImageInfo.exifDate("2019:07:14 18:20:11") == expected)
        #expect(ImageInfo.exifDate("2019:07:14 18:20:11 (2019:07:14 18:20:11, ASCII, 20 components, 20 bytes)") == expected)
        for bad in ["", "0000:00:00 00:00:00", "2019:07:14", "not a date at all!!"] {
            #expect(ImageInfo.exifDate(bad) == nil, "\(bad)")
        }
    }

    @Test func probeReadsTheHeaderOnly() async throws {
        let info = try await ImageEditor().probe(GoldenImage.fixture("rotated.jpg"))
        // Stored 64 × 96 with orientation 6: displayed 96 × 64.
        #expect(info.width == 96 && info.height == 64 && info.orientation == 6 && info.format == "jpeg")
    }
}
