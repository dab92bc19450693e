import GRDB

/// v4: indexes that answer every `photos.list` filter and sort by searching, never by reading the
/// whole table.
///
/// "Liked and blue, newest like first" joined every like to its photo to learn its colour and whether
/// it is dismissed: a lookup per like, 15 ms to count 10,000 likes. A like now carries those two facts
/// of its photo (`photo_dismissed`, `photo_color`), kept by triggers, so the likes' own indexes give
/// both the page, in order, and the count, as a range of one index. The photos' colour and source
/// indexes lead with the filter and the dismissed state and end with the default sort; the two sort
/// indexes lead with the dismissed state (every list filters on it), replacing the sort-only ones. The
/// likes' indexes end with `deleted_at`, always NULL in them: SQLite 3.40 reads a partial index alone
/// (covering) only when it holds every column the statement names, its own condition's too.
enum SchemaV4 {
    /// The SET clause that copies the facts of the photo `photoId` names onto a like.
    private static func photoFacts(of photoId: String) -> String {
        """
        photo_dismissed = coalesce((SELECT p.dismissed_at IS NOT NULL FROM photos p WHERE p.id = \(photoId)), 0),
                photo_color = (SELECT p.color_bucket FROM photos p WHERE p.id = \(photoId))
        """
    }

    static func migrate(_ db: Database) throws {
        try db.execute(sql: """
            ALTER TABLE likes ADD COLUMN photo_dismissed INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE likes ADD COLUMN photo_color TEXT;
            UPDATE likes SET \(photoFacts(of: "likes.photo_id"));

            CREATE INDEX likes_shown ON likes (account_id, photo_dismissed, liked_at, deleted_at) WHERE deleted_at IS NULL;
            CREATE INDEX likes_shown_color ON likes (account_id, photo_dismissed, photo_color, liked_at, deleted_at)
                WHERE deleted_at IS NULL;

            DROP INDEX photos_color;
            CREATE INDEX photos_color ON photos (color_bucket, dismissed_at, fetched_at);
            CREATE INDEX photos_source ON photos (source, dismissed_at, fetched_at);
            DROP INDEX photos_created;
            DROP INDEX photos_fetched;
            CREATE INDEX photos_shown_created ON photos (dismissed_at, created_at);
            CREATE INDEX photos_shown_fetched ON photos (dismissed_at, fetched_at);

            CREATE TRIGGER likes_photo_facts_insert AFTER INSERT ON likes BEGIN
                UPDATE likes SET \(photoFacts(of: "new.photo_id")) WHERE rowid = new.rowid;
            END;
            CREATE TRIGGER likes_photo_facts_moved AFTER UPDATE OF photo_id ON likes BEGIN
                UPDATE likes SET \(photoFacts(of: "new.photo_id")) WHERE rowid = new.rowid;
            END;
            CREATE TRIGGER photos_facts_to_likes AFTER UPDATE OF color_bucket, dismissed_at ON photos
            WHEN new.color_bucket IS NOT old.color_bucket OR (new.dismissed_at IS NULL) <> (old.dismissed_at IS NULL) BEGIN
                UPDATE likes SET photo_dismissed = new.dismissed_at IS NOT NULL, photo_color = new.color_bucket
                WHERE photo_id = new.id;
            END;
            """)
    }
}
