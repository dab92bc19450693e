import HTTP
import Store
import Supabase

extension SupabaseBackend {
    /// A page of `userId`'s rows of `table` after `cursor`, in (updated_at, `key`) order, and the
    /// answer's status: the one request of every cursor pull (likes, edits, the photos' rows). A failure
    /// is the result's, so that a page read ahead can be kept or dropped.
    ///
    /// `passingOver` names the column that says which device last wrote a row, and this device: its own
    /// writes, which its store holds as the server kept them (the push's answer), are not read back.
    func page<Row: Decodable>(
        of table: String, columns: String, key: String = "id", after cursor: SyncCursor, userId: String, limit: Int,
        passingOver ownWrites: OwnWrites? = nil, token: String
    ) async -> Result<(rows: [Row], status: Int), BackendError> {
        await pageAnswer(of: table, columns: columns, key: key, after: cursor, userId: userId, limit: limit, passingOver: ownWrites, token: token)
            .flatMap { response in
                Result { () throws(BackendError) in (try SupabaseBackend.decode([Row].self, from: response), response.status) }
            }
    }

    /// The answer to that page's request, undecoded (the photos' rows are read by the store's SQLite).
    func pageAnswer(
        of table: String, columns: String, key: String = "id", after cursor: SyncCursor, userId: String, limit: Int,
        passingOver ownWrites: OwnWrites? = nil, token: String
    ) async -> Result<HTTPResponse, BackendError> {
        do throws(BackendError) {
            return .success(try await send(
                "GET", "/rest/v1/\(table)",
                query: [("select", columns)] + cursor.pageFilters(userId: userId, key: key) + (ownWrites?.filter ?? [])
                    + [("order", "updated_at.asc,\(key).asc"), ("limit", String(limit))],
                bearer: token))
        } catch {
            return .failure(error)
        }
    }
}

/// The rows a device wrote itself, by the column of a table that names the writing device
/// (`likes.acted_by`, `photos.written_by`, supabase/migrations/20250101000800_push_in_one_transaction.sql).
///
/// The device id goes unquoted: PostgREST takes a top-level filter's value verbatim (quotes would be part
/// of it; only a logic tree's and an `in` list's values are read quoted), and a device id is hex (SchemaV9).
struct OwnWrites: Sendable {
    var column: String
    var device: String

    var filter: [(String, String)] { [(column, "neq.\(device)")] }
}
