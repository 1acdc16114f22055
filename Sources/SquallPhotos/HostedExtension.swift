import UploadClient

/// An app's extension, named once in the app's `main` (`Squall.main(extension:urlBase:)`), that the reference
/// client runs in place of its built-in policy wherever it runs: `squall upload`, every scenario of `squall run`,
/// and the child `squall upload` of kill and relaunch scenarios (the same executable, run again).
public struct HostedExtension: Sendable {
    public let type: any PHBackgroundResourceUploadJobExtension.Type
    /// The extension's `BackgroundUploadURLBase` (its Info.plist value on a phone), e.g. `https://api.example.com`.
    public let urlBase: String

    public init(_ type: any PHBackgroundResourceUploadJobExtension.Type, urlBase: String) {
        self.type = type
        self.urlBase = urlBase
    }

    /// The extension's name, for the lines that say which extension ran.
    public var name: String { String(describing: type) }

    /// A host for a session: `assets` is the library, `uploadURL` the endpoint the client would send to (the
    /// proxy's in a scenario), whose origin takes the place of `urlBase`; what outlives a process (the enabled
    /// flag, the app group containers, the conduct log) is kept in the `journal` folder; `tokens`, the run's bearer
    /// tokens, reach the extension through `SquallCredentials`.
    public func host(
        assets: any AssetLibrary, uploadURL: String, journal: String, tokens: (any TokenSource)? = nil
    ) throws -> PhotosExtensionHost {
        try PhotosExtensionHost(
            type, assets: assets, destinations: DestinationRule(base: urlBase, target: Self.origin(of: uploadURL)),
            folder: journal, tokens: tokens)
    }

    /// `https://127.0.0.1:8443` of `https://127.0.0.1:8443/upload?x=1`.
    static func origin(of url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return url }
        let rest = url[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        return String(url[..<authorityEnd])
    }
}
