#if canImport(Photos)
    import Photos
#else
    import SquallPhotos
#endif

/// The app's bearer token for its upload server, as the sample's extension gets it. On a phone the app keeps its
/// token where the extension can read it (a keychain access group, or the app group) and signs the user in again
/// when the server refuses it; here that is the placeholder of the seed. Under Squall the run's tokens stand in for
/// both (`SquallCredentials`): the reference server's token endpoint, or a server profile's `auth`.
enum SampleCredentials {
    /// The `Authorization` value for new jobs; nil when the app has no token.
    static func authorization() throws -> String? {
        #if canImport(Photos)
            return "Bearer YOUR_AUTH_TOKEN"
        #else
            return try SquallCredentials.authorization()
        #endif
    }

    /// A new `Authorization` value after the server refused the last one; nil when there is none to get (the job's
    /// 401 is then the final answer, acknowledged as a permanent failure).
    static func refreshedAuthorization() throws -> String? {
        #if canImport(Photos)
            return nil  // the app signs in again in the foreground; the extension cannot
        #else
            return try SquallCredentials.refreshedAuthorization()
        #endif
    }
}
