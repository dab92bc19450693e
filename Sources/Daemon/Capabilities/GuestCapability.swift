import Library
import Logging
import Shared
import Store
import Support

/// The guest's likes and edits (made signed out, kept on this machine) and their adoption into an
/// account (which announces its queued ops), with a line in the journal after one.
struct GuestCapability: Sendable {
    let adoption: GuestAdoption
    let logger: Logger

    func counts() throws -> GuestCounts {
        try adoption.counts()
    }

    /// Brings every like and edit of the guest's into `accountId`, queued for the server.
    func adopt(into accountId: String) throws -> GuestCounts {
        let adopted = try adoption.adopt(into: accountId, afterBatch: { CrashPoint.guestBatchAdopted.reach() })
        logger.notice("the guest's likes and edits were adopted", metadata: [
            "splashd_op": "guest_adopt", "splashd_likes": "\(adopted.likes)", "splashd_edits": "\(adopted.edits)",
        ])
        return adopted
    }

    /// After a sign-in: adopts the guest's rows when asked (or goes on with an adoption into this
    /// account that a crash cut short), and says what is left the guest's. A failed adoption does not
    /// fail the sign-in: it is logged, and what it did not move is still the guest's.
    func afterSignIn(accountId: String, adopt wanted: Bool) -> (adopted: GuestCounts?, left: GuestCounts?) {
        var adopted: GuestCounts?
        if wanted {
            do {
                adopted = try adopt(into: accountId)
            } catch {
                logger.error("the guest's likes and edits were not adopted: \(error)", metadata: ["splashd_op": "guest_adopt"])
            }
        } else {
            adopted = resume(for: accountId)
        }
        let left = (try? counts()).flatMap { $0.isEmpty ? nil : $0 }
        return (adopted, left)
    }

    /// Goes on with an adoption into `accountId` that a crash cut short; nil when none was under way.
    func resume(for accountId: String?) -> GuestCounts? {
        guard let accountId, let underWay = try? adoption.underWay(), underWay == accountId else { return nil }
        do {
            return try adopt(into: accountId)
        } catch {
            logger.error("the guest's adoption did not finish: \(error)", metadata: ["splashd_op": "guest_adopt"])
            return nil
        }
    }
}
