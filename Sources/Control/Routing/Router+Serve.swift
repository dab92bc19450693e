import Foundation
import Shared
import Synchronization

extension Router {
    /// A message read from a connection, with its envelope read (`parse`).
    public struct Line: Sendable {
        public let data: Data
        public let parsed: Parsed

        public init(data: Data, parsed: Parsed) {
            self.data = data
            self.parsed = parsed
        }
    }

    /// Answers one connection's requests one at a time, in the order they came, while reading one
    /// message ahead: a `$/cancelRequest` behind the request being worked on reaches it at once (its
    /// task is cancelled, and a cancellable method answers `cancelled`), instead of waiting its turn
    /// behind what it means to stop. Reading stops at the first other message until the one in
    /// work is answered, so a client that sends faster than it is answered is held back by its
    /// transport (nothing is queued here beyond that one message).
    ///
    /// `reply` is called once per message: with the answer, or nil for a notification (the control
    /// socket counts them; see ImmediateAnswers). Answers go in the order of their requests; a cancel's
    /// nil goes at once, ahead of the answer of the request it cancels.
    public func serve<Lines: AsyncSequence>(
        _ lines: Lines, context: ConnectionContext, reply: @escaping @Sendable (Data?) async throws -> Void
    ) async throws where Lines.Element == Line {
        let working = Mutex<InWork?>(nil)
        try await withTaskCancellationHandler {
            var stoppable: RPCID?
            do {
                for try await line in lines {
                    if case .cancel(let id) = line.parsed {
                        if let id, id == stoppable { working.withLock { $0?.handling?.cancel() } }
                        try await reply(nil)
                        continue
                    }
                    if let previous = working.withLock({ $0?.answering }) { try await previous.value }
                    stoppable = cancellableID(of: line.parsed)
                    let handling: Task<Data?, Never>? =
                        stoppable == nil ? nil : Task { await self.handle(line: line.data, parsed: line.parsed, context: context) }
                    let answering = Task {
                        let answer = if let handling { await handling.value } else { await self.handle(line: line.data, parsed: line.parsed, context: context) }
                        try await reply(answer)
                    }
                    working.withLock { $0 = InWork(answering: answering, handling: handling) }
                    if Task.isCancelled { working.withLock { $0?.cancel() } }
                }
            } catch {
                // The lines failed (one too long, the peer gone): the request before is still
                // answered, and before whatever the caller answers to the failure.
                _ = await working.withLock({ $0?.answering })?.result
                throw error
            }
            if let last = working.withLock({ $0?.answering }) { try await last.value }
        } onCancel: {
            working.withLock { $0?.cancel() }
        }
    }

    /// The request being answered: the task that writes its answer, and the one that works it out
    /// when a cancel may stop that (apart, because a write from a cancelled task fails).
    private struct InWork: Sendable {
        let answering: Task<Void, any Error>
        let handling: Task<Data?, Never>?

        func cancel() {
            answering.cancel()
            handling?.cancel()
        }
    }
}
