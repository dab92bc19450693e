import Foundation
import GRDB
import Store
import Testing
import TestSupport

@Suite struct GooglePickRowsTests {
    /// A session's picks counted by state, one session apart from another's.
    @Test func picksAreCountedByStateForTheirSessionOnly() throws {
        let dir = TemporaryDirectory()
        let store = try Store(path: dir.file("s.sqlite"))
        let states: [GooglePickRow.State] = [.waiting, .waiting, .waiting, .imported, .imported, .duplicate, .skipped, .failed]
        try store.write { db in
            for session in ["s1", "s2"] {
                try GooglePickRows.insert(db, GoogleSessionRow(
                    sessionId: session, accountId: "a", pickerUri: "https://photos.google.com/picker/\(session)", pollInterval: .seconds(5),
                    expiresAt: Date().addingTimeInterval(600), createdAt: Date()))
            }
            try GooglePickRows.insert(db, sessionId: "s1", picks: states.enumerated().map { position, state in
                GooglePickRow(itemId: "item\(position)", position: position, kind: "PHOTO", filename: nil, mimeType: nil, width: nil, height: nil,
                              takenAt: nil, camera: nil, state: state)
            })
            try GooglePickRows.insert(db, sessionId: "s2", picks: [
                GooglePickRow(itemId: "other", position: 0, kind: "PHOTO", filename: nil, mimeType: nil, width: nil, height: nil, takenAt: nil,
                              camera: nil, state: .imported),
            ])
        }
        let counts = try store.read { db in try GooglePickRows.counts(db, sessionId: "s1") }
        var expected = GooglePickRows.Counts()
        expected.total = 8
        expected.waiting = 3
        expected.imported = 2
        expected.duplicates = 1
        expected.skipped = 1
        expected.failed = 1
        #expect(counts == expected)
        #expect(counts.done == 5)
        let picks = try store.read { db in try GooglePickRows.picks(db, sessionId: "s1") }
        #expect(picks.reduce(into: GooglePickRows.Counts()) { $0.add($1.state) } == expected, "counted from picks already read, the same")
        #expect(try store.read { db in try GooglePickRows.counts(db, sessionId: "none") } == GooglePickRows.Counts())
    }
}
