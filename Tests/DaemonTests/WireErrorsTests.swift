@testable import Account
@testable import Daemon
import Editing
import Foundation
import HTTP
import Library
@testable import PhotoSources
import Shared
@testable import Sync
import Supabase
import Testing

/// Domain errors in the protocol's words, all put there by `WireErrors`.
struct WireErrorsTests {
    private func words(_ status: Int, _ json: String, retryAfter: String? = nil) -> RPCError {
        let headers = HTTPHeaders(retryAfter.map { [("Retry-After", $0)] } ?? [])
        return AccountFailure.backend(.server(SupabaseError(status: status, headers: headers, body: Array(json.utf8)))).wire
    }
    @Test func invalidCredentials() {
        let error = words(400, #"{"code":"invalid_credentials","message":"Invalid login credentials"}"#)
        #expect(error.kind == .rejected)
        #expect(error.message == "wrong e-mail or password")
    }

    @Test func userExists() {
        let error = words(422, #"{"code":422,"error_code":"user_already_exists","msg":"User already registered"}"#)
        #expect(error.kind == .conflict)
        #expect(error.message.contains("already exists"))
    }

    @Test func weakPasswordSaysWhy() {
        let error = words(422, #"{"code":"weak_password","message":"weak","weak_password":{"reasons":["length","pwned"]}}"#)
        #expect(error.kind == .invalidInput)
        #expect(error.message.contains("shorter than 6"))
        #expect(error.message.contains("data breaches"))
    }

    @Test func rateLimitedCarriesRetryAfter() {
        let error = words(429, #"{"code":"over_request_rate_limit","message":"slow down"}"#, retryAfter: "30")
        #expect(error.kind == .rateLimited)
        #expect(error.data?.retryAfter == 30)
        #expect(error.message.contains("30 s"))
    }

    @Test func offlineAndNotConfigured() {
        #expect(AccountFailure.backend(.network(.timeout)).wire.kind == .offline)
        #expect(AccountFailure.backend(.notConfigured).wire.message.contains("SPLASHD_BACKEND_URL"))
        #expect(AccountFailure.notSignedIn(.notSignedIn).wire.kind == .notSignedIn)
    }

    /// Failures that waiting will not mend are not called "offline", and no Swift value leaks into the words.
    @Test func untrustedAnswersAreNotOffline() {
        let tooLarge = AccountFailure.backend(.network(.tooLarge(limit: 32 << 20))).wire
        #expect(tooLarge.kind == .tooLarge && tooLarge.message.contains("32 MiB") && !tooLarge.message.contains("limit:"))
        let tls = AccountFailure.backend(.network(.tls(curlCode: 60, message: "SSL certificate problem: self-signed certificate"))).wire
        #expect(tls.kind == .rejected && tls.message.contains("network.ca_file") && !tls.message.contains("curlCode"))
        let redirect = AccountFailure.backend(.server(SupabaseError(status: 302, headers: HTTPHeaders(), body: []))).wire
        #expect(redirect.kind == .rejected && redirect.message.contains("backend.url"))
        let plain = AccountFailure.backend(.network(.insecureURL(host: "example.com"))).wire
        #expect(plain.kind == .rejected && plain.message.contains("https://") && !plain.message.contains("try again"))
    }

    @Test func libraryErrorsNameTheFieldAtFault() {
        #expect(WireErrors.rpcError(for: LibraryError.unknownPhoto("unsplash:x")) == RPCError(.notFound, .unknownPhoto(id: "unsplash:x"), field: "id"))
        #expect(WireErrors.rpcError(for: LibraryError.unknownEdit("e1"))?.data?.field == "edit_id")
        #expect(WireErrors.rpcError(for: LibraryError.unreadable("/nowhere", "no such folder"))?.message == "/nowhere: no such folder")
        #expect(WireErrors.rpcError(for: LibraryError.unknownOp("op1"))?.kind == .notFound)
        #expect(WireErrors.rpcError(for: LibraryError.opInFlight("op1"))?.kind == .conflict)
    }

    /// The domain's own words (its logs) and the wire's English are the same sentence.
    @Test func theWireSaysWhatTheDomainErrorSays() {
        let library: [LibraryError] = [
            .unknownPhoto("unsplash:x"), .unknownEdit("e1"), .unreadable("/nowhere", "no such folder"), .unknownOp("op1"),
            .opInFlight("op2"), .duplicate("unsplash:a", of: "local:b", distance: 4),
        ]
        for error in library {
            #expect(WireErrors.library(error).message == error.description)
        }
        let editing: [EditingError] = [
            .tooLarge(width: 12000, height: 9000, limitPixels: 100_000_000), .noSpace(.diskFull(why: .cannotSaveEdit(reason: "No space left on device"), directory: "/d")), .io(.cannotRead(path: "/x", reason: "gone")),
            .engine("out of memory"),
        ]
        for error in editing {
            #expect(WireErrors.editing(error).message == error.description)
        }
        #expect(WireErrors.editing(.corrupt("truncated")).message == "the photo's original cannot be edited: the image is damaged: truncated")
        #expect(WireErrors.rpcError(for: CapabilityMissing("editing"))?.message == CapabilityMissing("editing").description)
    }

    /// HTTP's failures as sentences say what HTTPError's description says, case by case.
    @Test func anHTTPFailureSentenceIsItsDescription() {
        let failures: [HTTPError] = [
            .network(curlCode: 7, message: "Couldn't connect to server"), .timeout, .tls(curlCode: 60, message: "self-signed"),
            .http(status: 503, headers: HTTPHeaders(), body: []), .tooLarge(limit: 32 << 20), .tooLarge(limit: 1000),
            .insecureURL(host: "example.com"), .cancelled, .invalidURL, .invalidHeader(name: "X-A"), .tooManyRedirects,
            .sizeMismatch(expected: 10, actual: 9), .checksumMismatch, .file(errno: 13, path: "/x"), .shutdown,
        ]
        for failure in failures {
            #expect(failure.text.english == failure.description)
        }
        #expect(SourceError.from(.timeout, service: "NASA").description
            == "cannot reach NASA: no answer in time (the connection or the transfer stalled)")
    }

    @Test func editingAndSourceErrors() {
        #expect(WireErrors.rpcError(for: EditingError.noSpace(.diskFull(why: .cannotSaveEdit(reason: "No space left on device"), directory: "/d")))?.kind == .noSpace)
        #expect(WireErrors.rpcError(for: SourceError.rateLimited(.hourlyLimitUsedUp(service: "Unsplash"), resetsBy: nil))?.data?.retryAfter == 3600)
        #expect(WireErrors.rpcError(for: SourceError.refused(status: 404, message: "gone"))?.kind == .notFound)
        let limited = WireErrors.rateLimited(.hourlyLimitUsedUp(service: "Unsplash"), resetsIn: 17 * 60 + 1)
        #expect(limited.message == "Unsplash's hourly request limit is used up; it has room again within 18 min")
        #expect(limited.data?.retryAfter == Double(17 * 60 + 1))
    }

    /// The window an hourly budget is estimated from: room again an hour after the oldest request of
    /// the last hour; with none of ours in it, an hour from now at the latest.
    @Test func anHourlyBudgetHasRoomAgainAnHourAfterItsOldestRequest() {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        var window = HourlyWindow()
        #expect(window.freesARequestBy(now: start) == start.addingTimeInterval(3600))
        window.record(start)
        window.record(start.addingTimeInterval(600))
        #expect(window.freesARequestBy(now: start.addingTimeInterval(1200)) == start.addingTimeInterval(3600))
        // The first request is an hour old: the second is now the oldest that counts.
        #expect(window.freesARequestBy(now: start.addingTimeInterval(3601)) == start.addingTimeInterval(4200))
    }

    /// What the daemon does not know stays unknown, so the router logs it as an internal error.
    /// Whatever is missing — accounts in a bare router, editing or imports when libvips did not
    /// start, image files — the method answers the same kind, naming what is missing.
    @Test func aMissingCapabilityIsOneKind() throws {
        for capability in ["accounts", "editing", "importing", "image files"] {
            let error = try #require(WireErrors.rpcError(for: CapabilityMissing(capability)))
            #expect(error.kind == .internalError)
            #expect(error.message == "not available in this daemon: \(capability) (its log says why)")
        }
    }

    /// The daemon's own refusals go through the one mapping, with the kind and field a client acts on;
    /// an image that did not come is `offline` when waiting may help, else `not_found`.
    @Test func theDaemonsOwnRefusalsAreMappedInOnePlace() {
        let cases: [(DaemonFailure, ErrorKind, String?)] = [
            (.photoNotInStore(id: "unsplash:x"), .notFound, "id"),
            (.importRunning(path: "/p"), .busy, nil),
            (.notSignedIn(.signInToSync), .notSignedIn, nil),
            (.noAccountServer, .offline, nil),
            (.unknownSubscription(7), .notFound, "subscription"),
            (.folderNotWatched(path: "/p"), .notFound, "path"),
            (.pictureCannotBeDrawn(id: "unsplash:x", path: "/p", reason: "r"), .invalidInput, "id"),
        ]
        for (failure, kind, field) in cases {
            let error = WireErrors.rpcError(for: failure)
            #expect(error?.kind == kind && error?.data?.field == field, "\(failure): \(String(describing: error))")
        }
        #expect(WireErrors.rpcError(for: DaemonFailure.importRunning(path: "/p"))?.data?.retryAfter == 5)
        let flaky = ImageFailure(message: "network error (curl 7)", transient: true)
        let gone = ImageFailure(message: "the server answered HTTP 404", status: 404, transient: false)
        #expect(WireErrors.rpcError(for: WireErrors.image(flaky, photoId: "unsplash:x", forEdit: true))?.kind == .offline)
        #expect(WireErrors.rpcError(for: WireErrors.image(gone, photoId: "unsplash:x", forEdit: false))?.kind == .notFound)
    }

    /// Nothing outside the mapping and the router builds a protocol error: the daemon's files throw
    /// their own failures (this reads the sources, so the rule holds as files are added).
    @Test func noRPCErrorIsBuiltOutsideTheMapping() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources/Daemon").standardized
        let files = FileManager.default.enumerator(atPath: root.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        #expect(files.count > 40, "read \(files.count) files under \(root.path)")
        let builders = try files.filter { !$0.hasPrefix("Errors/") }.filter { file in
            try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8).contains("RPCError(")
        }
        #expect(builders.isEmpty, "RPCError built in \(builders)")
    }

    @Test func anUnknownErrorIsNotMapped() {
        struct Strange: Error {}
        #expect(WireErrors.rpcError(for: Strange()) == nil)
    }
}

extension AccountFailure {
    fileprivate var wire: RPCError { WireErrors.account(self) }
}
