import Account
import GooglePhotos
import Realtime
import Support
import Sync

/// What a change of `BackgroundGate`'s holds (the desktop's word, the person's pause) or a wake from
/// sleep must ring: each part waits for its own reasons and would sleep on.
struct HoldWaiters: Sendable {
    var gate: BackgroundGate
    var account: AccountCapability
    var images: ImageCapability?
    var sync: SyncCapability
    var realtime: RealtimeCapability?
    var network: NetworkCapability
    var google: GoogleCapability

    func ring() {
        // Held downloads (a metered network, a pause): likes waiting for their photo's file to be
        // compared would wait for nothing.
        if !gate.allowsTransfers { images?.scanner.filesWillNotCome() }
        images?.queue.ring()
        images?.renditions.transfersMayHaveEnded()
        images?.scanner.transfersMayHaveEnded()
        sync.engine?.ring()
        network.gate.changed.signal()
        realtime?.service.ring()
        google.picks?.ring()
    }
}
