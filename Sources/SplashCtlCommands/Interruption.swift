#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import Dispatch

/// Ctrl-C during work the daemon can stop: splashctl cancels instead of dying, so the daemon's work
/// stops too (a request of a cancellable method is cancelled at the daemon, `$/cancelRequest`), where
/// a process killed by SIGINT would leave the daemon rendering a preview nobody will see. A second
/// Ctrl-C ends splashctl at once. Interrupted, splashctl exits 130, as a process ended by SIGINT.
enum Interruption {
    static let exitCode: Int32 = 128 + SIGINT

    static func cancelOnInterrupt(_ body: @escaping @Sendable () async throws -> Void) async throws {
        let (interrupts, delivered) = AsyncStream<Void>.makeStream()
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT)
        source.setEventHandler { delivered.yield() }
        source.resume()
        defer {
            source.cancel()
            signal(SIGINT, SIG_DFL)
        }
        let interrupted = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await body()
                return false
            }
            group.addTask {
                for await _ in interrupts { return true }
                return false
            }
            guard try await group.next() == true else {
                delivered.finish()
                try await group.waitForAll()
                return false
            }
            signal(SIGINT, SIG_DFL)
            group.cancelAll()
            // The body ends once the daemon has answered the cancel; what it printed of that answer
            // (the daemon's "cancelled") stands, its exit code does not.
            while true {
                do {
                    guard try await group.next() != nil else { break }
                } catch {}
            }
            return true
        }
        if interrupted { throw ExitCode(exitCode) }
    }
}
