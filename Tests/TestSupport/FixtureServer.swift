import Foundation

/// A Python fixture server for one test: started with its arguments, it prints the port it listens on
/// as its first line and serves until its stdin closes, so it dies with the test process even if
/// `stop` is never reached.
public final class FixtureServer: @unchecked Sendable {
    public let port: Int
    public let process: Process
    private let stdin: Pipe

    public enum Failure: Error { case noPort }

    public init(script: String, arguments: [String] = []) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script] + arguments
        stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = stdout.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            process.terminate()
            throw Failure.noPort
        }
        self.port = port
    }

    deinit { stop() }

    /// Stops the server; with `wait`, until it is gone and its port refuses connections.
    public func stop(wait: Bool = false) {
        if process.isRunning { process.terminate() }
        try? stdin.fileHandleForWriting.close()
        if wait { ChildProcess.reap(process) }
    }
}
