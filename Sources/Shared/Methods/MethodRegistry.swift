/// Every control method, in one place: the daemon's router registers handlers for exactly these, and
/// a test checks that none is missing either way.
public enum MethodRegistry {
    public static let all: [any RPCRequest.Type] = [
        PingRequest.self,
        StatusRequest.self,
        DescribeRequest.self,
        PhotosListRequest.self,
        PhotosLikeRequest.self,
        PhotosUnlikeRequest.self,
        PhotosDismissRequest.self,
        PhotosShowRequest.self,
        PhotosPictureRequest.self,
        PhotosPicturesRequest.self,
        CacheStatusRequest.self,
        CachePruneRequest.self,
        PhotosSearchRequest.self,
        SearchHistoryRequest.self,
        PhotosRandomRequest.self,
        TopicsListRequest.self,
        TopicPhotosRequest.self,
        PhotosStatsRequest.self,
        FeedsFollowRequest.self,
        FeedsUnfollowRequest.self,
        FeedsListRequest.self,
        LibraryImportRequest.self,
        LibraryWatchingRequest.self,
        LibraryUnwatchRequest.self,
        LibraryExportRequest.self,
        FiltersListRequest.self,
        EditsPreviewRequest.self,
        EditsCreateRequest.self,
        EditsListRequest.self,
        EditsDeleteRequest.self,
        SyncNowRequest.self,
        SyncPauseRequest.self,
        SyncResumeRequest.self,
        QueueListRequest.self,
        QueueRetryRequest.self,
        QueueDropRequest.self,
        SubscribeRequest.self,
        UnsubscribeRequest.self,
        SignupRequest.self,
        LoginRequest.self,
        ProviderLoginRequest.self,
        ProviderFinishRequest.self,
        GoogleConnectRequest.self,
        GoogleConnectFinishRequest.self,
        GoogleStatusRequest.self,
        GoogleDisconnectRequest.self,
        GooglePickRequest.self,
        GooglePicksRequest.self,
        LogoutRequest.self,
        WhoamiRequest.self,
        GuestStatusRequest.self,
        GuestAdoptRequest.self,
        ProfileGetRequest.self,
        SetUsernameRequest.self,
        UsersCountRequest.self,
        UsersRecentRequest.self,
        WebOpenRequest.self,
        WebRevokeRequest.self,
    ]

    public static var names: [String] { all.map { type in type.method } }

    public static func description(of type: any RPCRequest.Type) -> MethodDescription {
        func describe<R: RPCRequest>(_: R.Type) -> MethodDescription {
            MethodDescription(
                name: R.method,
                summary: R.summary,
                params: R.parameters,
                errors: R.errors,
                paramsExample: (try? JSONValue(encoding: R.example)) ?? .null,
                resultExample: (try? JSONValue(encoding: R.resultExample)) ?? .null,
                cancellable: R.isCancellable ? true : nil)
        }
        return describe(type)
    }
}
