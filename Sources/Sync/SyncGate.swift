import Supabase

/// Push batches and pull pages take turns. A pull page read while a change is on its way could
/// otherwise be applied after that change landed, undoing it locally; with turns, a pull either sees
/// the change still pending (and leaves it alone) or reads the server after it landed.
public actor SyncGate {
    private var busy = false
    private var waiting: [CheckedContinuation<Void, Never>] = []
    /// The turns given so far: a turn numbered one past another's followed it with none between.
    private var turns: UInt64 = 0

    public init() {}

    public func run<T: Sendable>(_ body: @Sendable () async -> T) async -> T {
        await run(numbered: { _ in await body() })
    }

    /// `run`, telling the body its turn's number.
    public func run<T: Sendable>(numbered body: @Sendable (UInt64) async -> T) async -> T {
        await acquire()
        turns += 1
        let result = await body(turns)
        release()
        return result
    }

    private func acquire() async {
        guard busy else {
            busy = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    private func release() {
        if waiting.isEmpty {
            busy = false
        } else {
            waiting.removeFirst().resume()  // the turn passes on; busy stays true
        }
    }
}

extension SyncGate {
    /// `run` for work that fails with a backend error: the error comes out once the turn has passed on.
    func run<T: Sendable>(throwing body: @Sendable () async throws(BackendError) -> T) async throws(BackendError) -> T {
        try await run(numberedThrowing: { _ throws(BackendError) in try await body() })
    }

    /// `run(numbered:)` for work that fails with a backend error.
    func run<T: Sendable>(numberedThrowing body: @Sendable (UInt64) async throws(BackendError) -> T) async throws(BackendError) -> T {
        let outcome = await run(numbered: { turn -> Result<T, BackendError> in
            do throws(BackendError) {
                return .success(try await body(turn))
            } catch {
                return .failure(error)
            }
        })
        return try outcome.get()
    }
}
