import SquallCore
import SquallNet

/// The client's token source for a profile's `TokenRecipe`.
public enum TokenSources {
    /// `recipe` as a `TokenSource`; a token URL's TLS trusts `trustedCAFile` (else the system's roots); a token
    /// command is one of `stop`'s children while it runs.
    /// `timeout` bounds a token endpoint's connect and answer (a silent endpoint must not hold the client longer
    /// than a silent upload server would).
    public static func source(
        _ recipe: TokenRecipe, trustedCAFile: String?, timeout: Duration = .seconds(10), stop: ProcessStop? = nil
    ) -> any TokenSource {
        switch recipe {
        case .fixed(let token): return StaticToken(token)
        case .command(let arguments): return CommandToken(arguments: arguments, stop: stop)
        case .endpoint(let request):
            return TokenEndpoint(request: request, trustedCAFile: trustedCAFile, timeout: timeout)
        }
    }
}
