import ServiceLifecycle
import Support

/// Goes on, once, with an adoption of the guest's likes and edits that a crash cut short (`GuestRows`
/// records it). A Service of its own so that the start does not wait for it: 10,000 likes left to move
/// held the control socket closed for longer than a client waits for it. The batches run on a thread
/// of their own (each is a store transaction; together they take seconds), and each is crash-safe, so
/// a stop meanwhile leaves the rest for the next start.
struct GuestAdoptionResumer: Service {
    let guests: GuestCapability
    let accountId: String?

    func run() async throws {
        guard let accountId else { return }
        _ = await blockingWork { guests.resume(for: accountId) }
    }
}
