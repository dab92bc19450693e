#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Shared
import SplashClient

/// What a command reaches outside itself: the daemon and the terminal. The executable runs with
/// `.process` (the control socket, stdout and stderr); tests run the same commands in-process, with a
/// connection to a router and a capture of what would have been printed.
public struct CommandEnvironment: Sendable {
    /// Opens a client to the daemon at a socket path.
    public var connect: @Sendable (String) throws(ClientError) -> SplashClient
    /// Where text goes.
    public var output: any CommandOutput

    public init(connect: @escaping @Sendable (String) throws(ClientError) -> SplashClient, output: any CommandOutput) {
        self.connect = connect
        self.output = output
    }

    public static let process = CommandEnvironment(
        connect: { path throws(ClientError) in try SplashClient.connect(socketPath: path) }, output: ProcessStreams())

    @TaskLocal public static var current = CommandEnvironment.process
}

public enum StandardStream: Sendable {
    case output, error
}

/// A sink for splashctl's text.
public protocol CommandOutput: Sendable {
    func write(_ data: Data, to stream: StandardStream)
    /// Whether `stream` is a terminal (colours, progress bars, prompts).
    func isTerminal(_ stream: StandardStream) -> Bool
}

/// The process's own stdout and stderr.
public struct ProcessStreams: CommandOutput {
    public init() {}

    public func write(_ data: Data, to stream: StandardStream) {
        switch stream {
        case .output: FileHandle.standardOutput.write(data)
        case .error: FileHandle.standardError.write(data)
        }
    }

    public func isTerminal(_ stream: StandardStream) -> Bool {
        isatty(stream == .output ? STDOUT_FILENO : STDERR_FILENO) == 1
    }
}
