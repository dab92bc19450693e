/// Where Google is and who splashd is to it: a Desktop OAuth client the person makes in their own
/// Google Cloud project (its id and secret configured like the Unsplash key; Google does not treat a
/// Desktop client's secret as secret, but splashd keeps it out of logs all the same).
public struct GoogleSettings: Sendable, Equatable {
    public var clientId: String
    public var clientSecret: String
    public var authURL: String
    public var tokenURL: String
    public var revokeURL: String
    /// The Picker API's base (`https://photospicker.googleapis.com`).
    public var pickerURL: String

    public static let scope = "https://www.googleapis.com/auth/photospicker.mediaitems.readonly"

    public init(
        clientId: String, clientSecret: String, authURL: String = "https://accounts.google.com/o/oauth2/v2/auth",
        tokenURL: String = "https://oauth2.googleapis.com/token", revokeURL: String = "https://oauth2.googleapis.com/revoke",
        pickerURL: String = "https://photospicker.googleapis.com"
    ) {
        self.clientId = clientId
        self.clientSecret = clientSecret
        self.authURL = authURL
        self.tokenURL = tokenURL
        self.revokeURL = revokeURL
        self.pickerURL = pickerURL
    }
}
