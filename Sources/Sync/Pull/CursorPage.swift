import HTTP
import Store
import Supabase

extension SupabaseBackend {
    /// A page of `userId`'s rows of `table` after `cursor`, in (updated_at, `key`) order, and the
    /// answer's status: the one request of every cursor pull (likes, edits, the photos' rows). A failure
    /// is the result's, so that a page read ahead can be kept or dropped.
    func page<Row: Decodable>(
        of table: String, columns: String, key: String = "id", after cursor: SyncCursor, userId: String, limit: Int, token: String
    ) async -> Result<(rows: [Row], status: Int), BackendError> {
        do throws(BackendError) {
            let response = try await send(
                "GET", "/rest/v1/\(table)",
                query: [("select", columns)] + cursor.pageFilters(userId: userId, key: key)
                    + [("order", "updated_at.asc,\(key).asc"), ("limit", String(limit))],
                bearer: token)
            return .success((try SupabaseBackend.decode([Row].self, from: response), response.status))
        } catch {
            return .failure(error)
        }
    }
}
