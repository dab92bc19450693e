import Foundation

/// One step of an edit's pipeline: a filter and its parameters, in the catalogue's order.
/// On the wire and in the store: `{"filter": "vignette", "params": [1.0, 0.6]}`.
public struct FilterStep: Codable, Sendable, Equatable, CustomStringConvertible {
    public var filter: String
    public var params: [Double]?

    public init(filter: String, params: [Double]? = nil) {
        self.filter = filter
        self.params = params
    }

    /// Parses the command line's form: `sepia`, `sepia:0.8`, `vignette:1.0,0.6`. Ranges are checked
    /// later, against the catalogue (FilterCatalog.resolve).
    public init(parsing text: String) throws(RPCError) {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        let name = String(parts[0]).trimmingCharacters(in: .whitespaces).lowercased()
        guard !name.isEmpty else { throw .invalidInput(.filterStepWithoutName(step: text), field: "filters") }
        var values: [Double] = []
        if parts.count == 2 {
            for piece in parts[1].split(separator: ",", omittingEmptySubsequences: false) {
                let trimmed = piece.trimmingCharacters(in: .whitespaces)
                guard let value = Double(trimmed), value.isFinite else {
                    throw .invalidInput(.filterParameterNotANumber(value: trimmed, step: text), field: "filters")
                }
                values.append(value)
            }
        }
        self.init(filter: name, params: values)
    }

    /// The command line's form again: `vignette:1,0.6`.
    public var description: String {
        guard let params, !params.isEmpty else { return filter }
        return filter + ":" + params.map(FilterCatalog.format).joined(separator: ",")
    }
}
