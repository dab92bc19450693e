import FoundationEssentials

/// A statement `photos.list` ran to answer, with its arguments and SQLite's plan for it: what the
/// request's `explain` returns, so that anyone can run the same SQL on the same file and see which
/// indexes it searched.
public struct QueryStatement: Codable, Sendable, Equatable {
    public var sql: String
    /// The values bound to its `?`s, in order.
    public var arguments: [JSONValue]
    /// `EXPLAIN QUERY PLAN`'s steps, one line each, indented by depth.
    public var plan: [String]

    public init(sql: String, arguments: [JSONValue], plan: [String]) {
        self.sql = sql
        self.arguments = arguments
        self.plan = plan
    }
}
