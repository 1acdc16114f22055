import SquallCore

/// The client's token source for a profile's `TokenRecipe`.
public enum TokenSources {
    /// `recipe` as a `TokenSource`; a token URL's TLS trusts `trustedCAFile` (else the system's roots).
    public static func source(_ recipe: TokenRecipe, trustedCAFile: String?) -> any TokenSource {
        switch recipe {
        case .fixed(let token): return StaticToken(token)
        case .command(let arguments): return CommandToken(arguments: arguments)
        case .endpoint(let request): return TokenEndpoint(request: request, trustedCAFile: trustedCAFile)
        }
    }
}
