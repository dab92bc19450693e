import GRDB

/// v10: full-text search as a person types. The index also keeps every word's first two, three and
/// four letters (FTS5's `prefix`), so a short last word ("lake su") is read from one entry instead of
/// merging every word it begins. Measured on a million photos (bench scenario 12, SQLite 3.40): the
/// match for "lake su" took 20.5 ms without and 5.8 ms with, for an index 3.3 times as large (81 →
/// 264 MB there; a few MB for a library of ten thousand), rebuilt here in about 9 s. Matching all but
/// the last word whole was measured too: 13.4 ms for "lake sun", and "lake" no longer finds "lakes".
enum SchemaV10 {
    static func migrate(_ db: Database) throws {
        // The triggers on photos name photos_fts at run time: they keep the new index as they kept the old.
        try db.execute(sql: """
            DROP TABLE photos_fts;
            CREATE VIRTUAL TABLE photos_fts USING fts5(
                title, description, alt_description, tags, author_name,
                content='photos', content_rowid='rowid', tokenize='unicode61 remove_diacritics 2', prefix='2 3 4');
            INSERT INTO photos_fts (photos_fts) VALUES ('rebuild');
            """)
    }
}
