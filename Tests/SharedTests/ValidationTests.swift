import Shared
import Testing

@Suite struct ValidationTests {
    @Test(arguments: [0, -1, 1001])
    func rejectsLimitsOutOfRange(limit: Int) {
        #expect(throws: RPCError.self) { try PhotosListRequest(limit: limit).validate() }
    }

    @Test func acceptsTheEdgesOfTheRange() throws {
        try PhotosListRequest(limit: 1).validate()
        try PhotosListRequest(limit: 1000, offset: 0).validate()
    }

    @Test func rejectsUnknownColourWithTheField() {
        do {
            try PhotosListRequest(color: "chartreuse").validate()
            Issue.record("accepted an unknown colour")
        } catch {
            #expect(error.kind == .invalidInput)
            #expect(error.data?.field == "color")
            #expect(error.code == -32602)
        }
    }

    @Test(arguments: ["", "   ", String(repeating: "a", count: 257)])
    func rejectsEmptyOrHugeText(text: String) {
        #expect(throws: RPCError.self) { try PhotosListRequest(text: text).validate() }
    }

    @Test func rejectsUnknownEventTypes() {
        #expect(throws: RPCError.self) { try SubscribeRequest(types: ["photo.changed", "nope"]).validate() }
        #expect(throws: Never.self) { try SubscribeRequest(types: ["photo.changed"]).validate() }
    }

    @Test func everyErrorKindHasADistinctCodeInTheRightRange() {
        let codes = ErrorKind.allCases.map(\.code)
        #expect(Set(codes).count == codes.count)
        for kind in ErrorKind.allCases {
            #expect((-32768 ... -32000).contains(kind.code))
            #expect((64...78).contains(kind.exitCode))
        }
    }
}

@Suite struct ColorBucketTests {
    @Test(arguments: [
        ("#0000FF", ColorBucket.blue), ("#FF0000", .red), ("#00A000", .green), ("#FFFF00", .yellow),
        ("#FF8C00", .orange), ("#008080", .teal), ("#800080", .purple), ("#FF00FF", .magenta),
        ("#000000", .black), ("#FFFFFF", .white), ("#808080", .blackAndWhite), ("#60544D", .blackAndWhite),
        ("2C5A8C", .blue),
    ])
    func bucketsColours(hex: String, bucket: ColorBucket) {
        #expect(ColorBucket(hex: hex) == bucket)
    }

    @Test(arguments: ["", "#12345", "#GGGGGG", "#1234567"])
    func refusesWhatIsNotAColour(hex: String) {
        #expect(ColorBucket(hex: hex) == nil)
    }
}

@Suite struct SocketLocationTests {
    @Test func flagWinsThenEnvironmentThenRuntimeDirectory() {
        let env = ["SPLASHD_SOCKET": "/e/s.sock", "XDG_RUNTIME_DIR": "/run/user/7"]
        #expect(SocketLocation.socketPath(flag: "/f.sock", environment: env, uid: 7) == "/f.sock")
        #expect(SocketLocation.socketPath(flag: nil, environment: env, uid: 7) == "/e/s.sock")
        #expect(SocketLocation.socketPath(flag: nil, environment: ["XDG_RUNTIME_DIR": "/run/user/7"], uid: 7) == "/run/user/7/splashd/control.sock")
        #expect(SocketLocation.socketPath(flag: nil, environment: ["RUNTIME_DIRECTORY": "/run/user/7/splashd:/other"], uid: 7) == "/run/user/7/splashd/control.sock")
        #expect(SocketLocation.socketPath(flag: nil, environment: [:], uid: 7) == "/tmp/splashd-7/control.sock")
    }
}
