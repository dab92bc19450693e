import Store
import Testing

/// The pull's page request: after the cursor by (updated_at, id), with the owner and the cursor's
/// timestamp as filters of their own so that Postgres starts its index range at the cursor (bench
/// scenario 11: 548 ms against 2.8 ms for a page early in 100,000 likes).
@Suite struct SyncCursorTests {
    @Test func aPageNamesItsOwnerAndStartsAtTheCursor() {
        let cursor = SyncCursor(updatedAt: "2026-11-25T10:00:00.123456+00:00", lastID: "5b0c2f4e-0000-4000-8000-000000000001")
        let filters = cursor.pageFilters(userId: "0b7c6f1e-1111-4111-8111-111111111111")
        #expect(filters.map(\.0) == ["user_id", "updated_at", "or"])
        #expect(filters[0].1 == "eq.0b7c6f1e-1111-4111-8111-111111111111")
        #expect(filters[1].1 == #"gte."2026-11-25T10:00:00.123456+00:00""#)
        #expect(filters[2].1 == #"(updated_at.gt."2026-11-25T10:00:00.123456+00:00",and(updated_at.eq."2026-11-25T10:00:00.123456+00:00",id.gt.5b0c2f4e-0000-4000-8000-000000000001))"#)
    }

    @Test func theFirstPageStartsAtTheEpochAfterTheNilId() {
        let filters = SyncCursor.start.pageFilters(userId: "u")
        #expect(filters[1].1 == #"gte."1970-01-01T00:00:00+00:00""#)
        #expect(filters[2].1.hasSuffix("id.gt.00000000-0000-0000-0000-000000000000))"))
    }

    @Test func thePhotosRowsAreAfterAQuotedPhotoId() {
        let cursor = SyncCursor(updatedAt: "2026-11-25T10:00:00+00:00", lastID: #"nasa:a.b,c"d"#)
        let filters = cursor.pageFilters(userId: "u", key: "photo_id")
        #expect(filters[2].1 == #"(updated_at.gt."2026-11-25T10:00:00+00:00",and(updated_at.eq."2026-11-25T10:00:00+00:00",photo_id.gt."nasa:a.b,c\"d"))"#)
        #expect(SyncCursor.start.pageFilters(userId: "u", key: "photo_id")[2].1.hasSuffix(#"photo_id.gt.""))"#))
    }
}
