import Account
import Editing
import Library
import PhotoSources
import Shared

/// Every domain error in the protocol's terms, in one place: the router asks here about whatever a
/// handler throws that is not already an `RPCError`. Handlers call the domain and let its errors go.
enum WireErrors {
    static func rpcError(for error: any Error) -> RPCError? {
        switch error {
        case let error as LibraryError: library(error)
        case let error as EditingError: editing(error)
        case let error as SourceError: source(error)
        case let error as AccountFailure: account(error)
        case let error as CapabilityMissing: RPCError(.internalError, error.description)
        default: nil
        }
    }

    static func library(_ error: LibraryError) -> RPCError {
        switch error {
        case .unknownPhoto: RPCError(.notFound, error.description, field: "id")
        case .unknownEdit: RPCError(.notFound, error.description, field: "edit_id")
        case .unreadable: RPCError(.notFound, error.description, field: "path")
        case .unknownOp: RPCError(.notFound, error.description, field: "op_id")
        case .opInFlight: RPCError(.conflict, error.description, field: "op_id")
        case .duplicate: RPCError(.duplicate, error.description, field: "id")
        }
    }

    /// An original the editor cannot work on is the request's problem, named by its photo id.
    static func editing(_ error: EditingError) -> RPCError {
        switch error {
        case .tooLarge: RPCError(.tooLarge, error.description, field: "id")
        case .unsupported, .corrupt: RPCError(.invalidInput, "the photo's original cannot be edited: \(error.description)", field: "id")
        case .noSpace: RPCError(.noSpace, error.description)
        case .io, .engine: RPCError(.internalError, error.description)
        }
    }
}
