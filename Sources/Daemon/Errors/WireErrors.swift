#if canImport(Glibc)
import Glibc
#endif
import Account
import GooglePhotos
import Editing
import Library
import PhotoSources
import Shared
import Support

/// Every domain error in the protocol's terms, in one place: the router asks here about whatever a
/// handler throws that is not already an `RPCError`. Handlers call the domain and let its errors go.
enum WireErrors {
    static func rpcError(for error: any Error) -> RPCError? {
        switch error {
        case let error as LibraryError: library(error)
        case let error as EditingError: editing(error)
        case let error as SourceError: source(error)
        case let error as AccountFailure: account(error)
        case let error as ProviderSignInFailure: browserFlow(error.flow, again: "splashctl login --provider")
        case let error as GoogleFailure: google(error)
        case let error as DaemonFailure: daemon(error)
        case let error as CapabilityMissing: RPCError(.internalError, .capabilityMissing(capability: error.capability))
        // What the daemon keeps in its own files (a pause): the disk refused it.
        case let error as FileError: RPCError(.internalError, .cannotWriteFile(path: error.path, reason: String(cString: strerror(error.errno))))
        default: nil
        }
    }

    static func library(_ error: LibraryError) -> RPCError {
        switch error {
        case .unknownPhoto(let id): RPCError(.notFound, .unknownPhoto(id: id), field: "id")
        case .unknownEdit(let id): RPCError(.notFound, .unknownEdit(id: id), field: "edit_id")
        case .unreadable(let path, let reason): RPCError(.notFound, .unreadablePath(path: path, reason: reason), field: "path")
        case .unknownOp(let id): RPCError(.notFound, .unknownOp(id: id), field: "op_id")
        case .opInFlight(let id): RPCError(.conflict, .opInFlight(id: id), field: "op_id")
        case .duplicate(let id, let twin, let distance): RPCError(.duplicate, .duplicate(id: id, twin: twin, distance: distance), field: "id")
        }
    }

    /// An original the editor cannot work on is the request's problem, named by its photo id.
    static func editing(_ error: EditingError) -> RPCError {
        switch error {
        case .tooLarge(let width, let height, let limitPixels):
            RPCError(.tooLarge, .imageTooLarge(width: width, height: height, limitPixels: limitPixels), field: "id")
        case .unsupported(let detail): RPCError(.invalidInput, .originalNotAnImage(detail: detail), field: "id")
        case .corrupt(let detail): RPCError(.invalidInput, .originalDamaged(detail: detail), field: "id")
        case .noSpace(let text): RPCError(.noSpace, text)
        case .io(let text): RPCError(.internalError, text)
        case .engine(let detail): RPCError(.internalError, .imageEngineFailed(detail: detail))
        // Only previews can be cancelled.
        case .cancelled: RPCError(.cancelled, .cancelledByClient(method: EditsPreviewRequest.method))
        }
    }
}
