import ResumableUpload
import Scenario

/// What `squall check-server` checks and how: the server's creation URL, the interop versions, what the server's
/// profile says it serves and allows, the bearer token, the CA for https, and how long each case may take.
public struct ServerCheckConfiguration: Sendable {
    /// The creation URL (`http://127.0.0.1:8080/upload`): where uploads are created with POST.
    public var url: String
    /// The versions to check (`--interop`); nil: the profile's `interop` list, else every version, 3 … 10.
    public var versions: [InteropVersion]?
    /// What the server serves and allows (`--profile FILE`); nil: nothing is known, and every case that needs to
    /// know something (a `max-size`, completed uploads kept) is skipped.
    public var profile: ServerProfile?
    /// A bearer token for every request (`--token`); nil: the profile's `auth`, else none.
    public var token: String?
    /// A PEM file of the CA that signed an https server's certificate (`--ca`); nil: the system's roots.
    public var trustedCAFile: String?
    /// How long one case may take, its requests together (`--timeout`). Default 10 s.
    public var caseTimeout: Duration = .seconds(10)

    public init(url: String) {
        self.url = url
    }

    /// The versions the check runs: `versions`, else the profile's (oldest first), else every version.
    public var checkedVersions: [InteropVersion] {
        if let versions { return versions }
        let listed = (profile?.interop ?? []).sorted().compactMap(InteropVersion.init(rawValue:))
        return listed.isEmpty ? InteropVersion.all : listed
    }
}
