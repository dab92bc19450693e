public enum SplashVersion {
    public static let current = "0.1.0"
}
