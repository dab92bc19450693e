import Control
import Shared

/// guest.*: the likes and edits made here signed out, and bringing them into the account.
enum GuestRoutes {
    static func register(into router: inout Router, state: DaemonState, guests: GuestCapability) {
        router.register(GuestStatusRequest.self) { _, _ in
            try guests.counts()
        }
        router.register(GuestAdoptRequest.self) { _, _ in
            let account = try state.requireAccount(.signInToAdopt)
            return GuestAdoptResult(adopted: try guests.adopt(into: account))
        }
    }
}
