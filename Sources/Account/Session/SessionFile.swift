#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Shared
import Supabase
import Support

/// The session on disk: `<state>/session.json`, mode 0600.
///
/// Written atomically (temp file, fsync, rename, directory fsync) so that a crash in the middle of a
/// token rotation leaves either the old session or the new one, never neither. The old refresh token is
/// still good for that case: Auth hands the active child again to a client presenting its revoked
/// parent. A file that cannot be read as a session is moved aside (kept for inspection), not deleted.
public struct SessionFile: Sendable {
    public let path: String

    public enum Loaded: Sendable, Equatable {
        case none
        case session(Session)
        /// The file was unreadable (`problem` says how) and now lives at `movedTo`.
        case corrupt(movedTo: String, problem: DaemonText)
    }

    public init(directory: String) {
        path = directory + "/session.json"
    }

    public func load() -> Loaded {
        guard let data = FileManager.default.contents(atPath: path) else {
            return FileManager.default.fileExists(atPath: path) ? moveAside(problem: .sessionFileCannotBeRead) : .none
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        do {
            let session = try decoder.decode(Session.self, from: data)
            guard session.isUsable else { return moveAside(problem: .sessionFileHoldsNoUser) }
            return .session(session)
        } catch {
            return moveAside(problem: .sessionFileNotASession(detail: Self.describe(error)))
        }
    }

    public func save(_ session: Session) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        try DurableFile.replace(path, with: try encoder.encode(session), mode: 0o600)
    }

    public func remove() throws {
        if unlink(path) != 0 && errno != ENOENT { throw FileError(.remove, path: path, errno: errno) }
        DurableFile.syncDirectory(of: path)
    }

    private func moveAside(problem: DaemonText) -> Loaded {
        let stamp = Int(Date().timeIntervalSince1970)
        var target = "\(path).corrupt-\(stamp)"
        var n = 1
        while FileManager.default.fileExists(atPath: target) {
            target = "\(path).corrupt-\(stamp)-\(n)"
            n += 1
        }
        if rename(path, target) != 0 {
            // Could not move it: leave it in place rather than delete it; the daemon starts signed out.
            return .corrupt(movedTo: path, problem: problem)
        }
        DurableFile.syncDirectory(of: path)
        return .corrupt(movedTo: target, problem: problem)
    }

    private static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        switch error {
        case .dataCorrupted: return "not valid JSON"
        case .keyNotFound(let key, _): return "no \(key.stringValue)"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "bad \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        @unknown default: return "\(error)"
        }
    }
}
