import UploadClient

/// The bearer tokens of the server under test, for an app's extension, as an app hands its extension its own: on a
/// phone the app keeps its access token where the extension can read it (its keychain access group or app group)
/// and signs in again when the server refuses it; under Squall the run's tokens take that place (the reference
/// server's token endpoint in scenarios with `server.token-ttl`, a server profile's `auth`, `squall upload
/// --token`, `--token-url` or `--token-command`). Not part of PhotoKit: keep the call behind `#if
/// canImport(Photos)`, with the app's own token store on the other side.
///
/// ```swift
/// #if canImport(Photos)
///     let authorization = AppTokens.authorization()          // the app's own
/// #else
///     let authorization = try SquallCredentials.authorization()
/// #endif
/// if let authorization { request.setValue(authorization, forHTTPHeaderField: "Authorization") }
/// ```
/// Call them inside `processJobs()` (the extension's invocation); a token request goes through the proxy when the
/// token endpoint is the server's, so a scenario's faults meet it and `auth-refreshes` counts it. A token endpoint
/// that fails or does not answer within the client's read timeout makes the call throw: an invocation that cannot
/// build its destinations returns `.failure`, as an app's extension does without a token.
public enum SquallCredentials {
    /// The `Authorization` value for a destination (`Bearer <token>`): the token the run holds now, fetched the first
    /// time. Nil when the run has no tokens (the server needs none).
    public static func authorization() throws -> String? {
        try tokens.map { "Bearer " + (try $0.token(refresh: false)) }
    }

    /// A new `Authorization` value after the server refused the last one (a job failed with
    /// `userAuthenticationRequired`), as the app signs in again: the token source is asked anew. Nil when the run has
    /// no tokens, or only a fixed one that asking again cannot change (then a retry would meet the same 401).
    public static func refreshedAuthorization() throws -> String? {
        guard let source = tokens, source.canRefresh else { return nil }
        return "Bearer " + (try source.token(refresh: true))
    }

    private static var tokens: (any TokenSource)? {
        guard let binding = LibraryBinding.current else {
            preconditionFailure(
                "SquallPhotos: SquallCredentials outside processJobs() or willTerminate(); an extension reads its "
                    + "app's tokens while the system runs it")
        }
        return binding.tokens
    }
}
