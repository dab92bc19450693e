import Foundation
import Shared
import Testing

/// The daemon's error sentences as data: every one survives the wire, a newer daemon's unknown one
/// leaves the error readable, and the English the daemon sends as `message` is the sentence it sent
/// before sentences were data.
@Suite struct DaemonTextTests {
    @Test(arguments: DaemonText.examples)
    func everySentenceRoundTripsInAnError(text: DaemonText) throws {
        let error = RPCError(.invalidInput, text, field: "id")
        #expect(error.message == text.english)
        let data = try JSONCoding.encoder().encode(error)
        let decoded = try JSONCoding.decoder().decode(RPCError.self, from: data)
        #expect(decoded == error)
        #expect(decoded.data?.text == text)
    }

    /// A sentence this client does not know, or one whose parts changed, decodes as no sentence: the
    /// error keeps its kind, field and English message.
    @Test(arguments: [
        #"{"code":-32003,"message":"no such album 7","data":{"kind":"not_found","field":"album","text":{"unknown_album":{"album":7}}}}"#,
        #"{"code":-32003,"message":"no such album 7","data":{"kind":"not_found","field":"album","text":{"unknown_photo":{"photo":7}}}}"#,
        #"{"code":-32003,"message":"no such album 7","data":{"kind":"not_found","field":"album","text":"unknown_album"}}"#,
    ])
    func anUnknownSentenceDecodesAsAbsent(json: String) throws {
        let decoded = try JSONCoding.decoder().decode(RPCError.self, from: Data(json.utf8))
        #expect(decoded.kind == .notFound)
        #expect(decoded.data?.field == "album")
        #expect(decoded.data?.text == nil)
        #expect(decoded.message == "no such album 7")
    }

    /// The same in a status: a newer daemon's reason for the network or the live channel leaves
    /// `daemon.status` and its events readable, their English `reason` intact.
    @Test func anUnknownReasonInAStatusDecodesAsAbsent() throws {
        let connectivity = try JSONCoding.decoder().decode(ConnectivityStatus.self, from: Data(
            #"{"state":"offline","reason":"the moon is in the way","text":{"moon_in_the_way":{}},"since":"2026-11-18T11:06:40Z"}"#.utf8))
        #expect(connectivity.state == .offline && connectivity.reason == "the moon is in the way" && connectivity.text == nil)
        #expect(connectivity.since != nil)
        let live = try JSONCoding.decoder().decode(LiveChannelStatus.self, from: Data(
            #"{"state":"down","reason":"the moon is in the way","text":{"moon_in_the_way":{}}}"#.utf8))
        #expect(live.state == .down && live.reason == "the moon is in the way" && live.text == nil)
        let known = LiveChannelStatus(state: .down, text: .liveSocketClosed)
        #expect(try JSONCoding.decoder().decode(LiveChannelStatus.self, from: JSONCoding.encoder().encode(known)) == known)
    }

    /// An older daemon's error, without `text`, decodes as before.
    @Test func anErrorWithoutTextDecodes() throws {
        let json = #"{"code":-32004,"message":"slow down","data":{"kind":"rate_limited","retry_after":30}}"#
        let decoded = try JSONCoding.decoder().decode(RPCError.self, from: Data(json.utf8))
        #expect(decoded.data?.retryAfter == 30)
        #expect(decoded.data?.text == nil)
        #expect(decoded.message == "slow down")
    }

    /// Scripts and tests match on the daemon's English: these are the sentences it sent before they
    /// became data, word for word.
    @Test(arguments: [
        (DaemonText.unknownPhoto(id: "unsplash:abc"), "no photo unsplash:abc in the library; search for it or open it first"),
        (.unknownMethod(method: "photos.frobnicate"), "unknown method 'photos.frobnicate'; daemon.describe lists every method"),
        (.mustBeOneOf(name: "order", choices: ["featured", "latest", "oldest", "position"]), "order must be featured, latest, oldest or position"),
        (.mustBeOneOf(name: "order", choices: ["relevant", "latest"]), "order must be relevant or latest"),
        (.mustBeBetweenNot(name: "limit", minimum: 1, maximum: 500, given: 0), "limit must be between 1 and 500, not 0"),
        (.filterParameterCount(filter: "vignette", expected: 2, parameters: ["strength", "radius"], given: 3),
         "vignette takes 2 parameter(s) (strength, radius), not 3"),
        (.filterParameterCount(filter: "grayscale", expected: 0, parameters: [], given: 1), "grayscale takes 0 parameter(s), not 1"),
        (.filterParameterOutOfRange(filter: "sepia", parameter: "amount", minimum: 0, maximum: 1, given: 1.5),
         "sepia amount must be between 0 and 1, not 1.5"),
        (.tooManyAttemptsServerSays(seconds: 37), "too many attempts; the server asks to try again in 37 s"),
        (.tooManyAttemptsServerSays(seconds: nil), "too many attempts; the server asks to try again later"),
        (.weakPassword(reasons: ["length", "pwned"], minimumLength: 6, message: "weak"),
         "the password is too weak: it is shorter than 6 characters; it appears in known data breaches"),
        (.weakPassword(reasons: [], minimumLength: 6, message: "Password should be stronger"), "the password is too weak: Password should be stronger"),
        (.sourceRateLimited(why: .hourlyLimitUsedUp(service: "Unsplash"), minutes: 18),
         "Unsplash's hourly request limit is used up; it has room again within 18 min"),
        (.sourceUnreachable(why: .serviceFailed(service: "NASA", status: 503)), "NASA failed (HTTP 503); try again when online"),
        (.sourceUnreadable(why: .serviceAnswerNotJson(service: "NASA")),
         "the photo service sent an answer splashd cannot read: NASA's answer is not the expected JSON"),
        (.cannotUseService(service: "NASA", why: .tooManyRedirects), "cannot use NASA: too many redirects (a redirect loop?)"),
        (.answerTooLarge(limit: 33_554_432), "the answer was larger than 32 MiB, so splashd stopped reading it"),
        (.unsplashKeyMissing, "no Unsplash access key is configured; set unsplash.access_key_file (or SPLASHD_UNSPLASH_ACCESS_KEY)"),
        (.imageTooLarge(width: 12000, height: 9000, limitPixels: 100_000_000),
         "the image is 12000 × 9000 (108 MP), above the limit of 100 MP (images.max_megapixels)"),
        (.imageTooLarge(width: 1200, height: 1000, limitPixels: 1_000_000),
         "the image is 1200 × 1000 (1.2 MP), above the limit of 1.0 MP (images.max_megapixels)"),
        (.originalDamaged(detail: "Premature end of JPEG file"), "the photo's original cannot be edited: the image is damaged: Premature end of JPEG file"),
        (.peerNotAllowed(uid: 1013), "permission denied: only uid 1013 and root may use this socket"),
        (.usernameLength(minimum: 3, maximum: 32, given: 2), "a username is 3 to 32 characters, not 2"),
        (.notSignedIn, "not signed in; run: splashctl login --email <address>"),
        (.notSignedInBecause(why: .serverEndedSession(code: "session_not_found", keptChanges: 1)),
         "not signed in: the server ended the session (session_not_found); sign in again — 1 queued change(s) are kept for this account"),
        (.sessionFileMovedAside(problem: .sessionFileNotASession(detail: "bad"), movedTo: "/s.corrupt-1"),
         "the session file is not a session (bad); it was moved to /s.corrupt-1; sign in again"),
        (.paramWrongType(method: "photos.list", path: "params.limit", expected: "integer"), "invalid params for photos.list: params.limit: expected an integer"),
        (.paramNull(method: "photos.list", path: "", expected: "object"), "invalid params for photos.list: the message: expected an object, found null"),
        (.paramRequired(method: "photos.like", path: "id"), "invalid params for photos.like: id is required"),
        (.diskFull(why: .cannotSaveEdit(reason: "No space left on device"), directory: "/d/library/edits"),
         "cannot save the edit: No space left on device in /d/library/edits; free some space and try again"),
    ])
    func theEnglishIsTheSentenceSentBefore(text: DaemonText, sentence: String) {
        #expect(text.english == sentence)
    }

    @Test func validationSendsTheSentenceAsData() throws {
        let request = PhotosListRequest(limit: 0)
        #expect(throws: RPCError(.invalidInput, .mustBeBetweenNot(name: "limit", minimum: 1, maximum: PhotosListRequest.maxLimit, given: 0), field: "limit")) {
            try request.validate()
        }
    }
}
