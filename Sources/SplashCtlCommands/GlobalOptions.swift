#if canImport(Glibc)
import Glibc
#endif
import ArgumentParser
import CLIText
import Foundation
import Shared
import SplashClient

/// Options every command takes.
struct GlobalOptions: ParsableArguments {
    @Option(help: .text(.socketOption))
    var socket: String?
    @Flag(help: .text(.jsonFlag))
    var json = false
    @Flag(help: .text(.noColorFlag))
    var noColor = false

    var socketPath: String {
        SocketLocation.socketPath(flag: socket, environment: ProcessInfo.processInfo.environment, uid: getuid())
    }

    var style: TerminalStyle {
        TerminalStyle(color: !noColor && ProcessInfo.processInfo.environment["NO_COLOR"] == nil && Output.isTerminal(.output))
    }

    /// Connects, runs `body`, and turns every failure into a message on stderr and an exit code.
    func withClient(_ body: (SplashClient) async throws -> Void) async throws {
        do {
            let client = try CommandEnvironment.current.connect(socketPath)
            do {
                try await body(client)
            } catch {
                await client.close()
                throw error
            }
            await client.close()
        } catch let error as ClientError {
            Output.error(Self.text(error))
            throw ExitCode(error.exitCode)
        } catch let error as RPCError {
            if json {
                Output.errorJSON(error)
            } else {
                Output.error(error.text())
            }
            throw ExitCode(error.kind?.exitCode ?? ErrorKind.internalError.exitCode)
        }
    }

    /// SplashClient's failures in the user's language (the reasons inside come from the system).
    static func text(_ error: ClientError) -> String {
        let message: Message = switch error {
        case .notRunning(let path): .daemonNotRunning(path: path)
        case .permissionDenied(let path): .socketPermissionDenied(path: path)
        case .invalidSocketPath(let path): .socketPathTooLong(path: path)
        case .cannotConnect(let path, let reason): .cannotConnect(path: path, reason: reason)
        case .connectionLost(let reason): .connectionLost(reason: reason)
        case .protocolError(let reason): .unexpectedAnswer(reason: reason)
        }
        return message.text()
    }

    /// Sends `request` and prints the result: raw JSON with `--json`, else through `render`.
    /// `whileWaiting` runs beside a slow request (a progress display) and is cancelled when it answers.
    /// Sends `request` and prints its result (`render`, or the raw JSON under --json). `observe` sees
    /// the typed result either way, for a command whose exit status depends on it.
    func run<R: RPCRequest>(
        _ request: R, whileWaiting: (@Sendable (String) async -> Void)? = nil, observe: (R.Result) -> Void = { _ in },
        render: (R.Result, TerminalStyle) -> String
    ) async throws {
        try await withClient { client in
            if json {
                let raw = try await client.sendRaw(request)
                Output.json(raw)
                if let typed = try? JSONCoding.decoder().decode(R.Result.self, from: JSONCoding.encoder().encode(raw)) { observe(typed) }
                return
            }
            guard let whileWaiting else {
                let result = try await client.send(request)
                observe(result)
                Output.line(render(result, style))
                return
            }
            let socketPath = self.socketPath
            let result = try await withThrowingTaskGroup(of: R.Result?.self) { group in
                group.addTask {
                    await whileWaiting(socketPath)
                    return nil
                }
                let result = try await client.send(request)
                group.cancelAll()
                try await group.waitForAll()
                return result
            }
            observe(result)
            Output.line(render(result, style))
        }
    }
}
