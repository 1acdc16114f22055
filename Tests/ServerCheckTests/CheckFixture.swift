import ResumableUpload
import Scenario
import ServerCheck
import TLSKit
import TestSupport
import UploadServer

/// The reference server on 127.0.0.1:0 (store in a temporary folder) and what the checks of these tests share.
final class ReferenceServer {
    let folder: TLSFixtures.TemporaryDirectory
    let server: UploadServer
    /// The CA's certificate file when the server speaks HTTPS.
    let caFile: String?

    init(maxSize: Int64? = nil, tls: Bool = false, configure: (inout UploadServerConfiguration) -> Void = { _ in })
        throws
    {
        folder = try TLSFixtures.TemporaryDirectory()
        var configuration = UploadServerConfiguration(storeDirectory: folder.file("store"))
        configuration.uploadProtocol.limits.maxSize = maxSize
        var caFile: String?
        if tls {
            let authority = try TLSFixtures.makeCertificateAuthority(in: folder)
            configuration.certificateAuthorityDirectory = authority.directory
            caFile = authority.certificatePath
        }
        configure(&configuration)
        server = try UploadServer(configuration: configuration)
        self.caFile = caFile
    }

    deinit {
        server.stop()
    }

    var creationURL: String { server.url + "/upload" }
}

enum CheckFixture {
    /// A profile: the versions served, completed uploads kept a day, the max-size when given.
    static func profile(interop: [Int] = Array(3...8), maxSize: Int64? = nil) -> ServerProfile {
        var profile = ServerProfile()
        profile.interop = interop
        profile.retention = .seconds(86_400)
        profile.maxSize = maxSize
        return profile
    }

    /// Checks `url` at `versions` with `profile`, each case within `timeout`.
    static func check(
        _ url: String, versions: [Int]? = nil, profile: ServerProfile? = CheckFixture.profile(),
        timeout: Duration = .seconds(10), configure: (inout ServerCheckConfiguration) -> Void = { _ in }
    ) throws -> [ServerCheckResult] {
        var configuration = ServerCheckConfiguration(url: url)
        configuration.versions = versions?.compactMap(InteropVersion.init(rawValue:))
        configuration.profile = profile
        configuration.caseTimeout = timeout
        configure(&configuration)
        return try ServerCheck.run(configuration)
    }

    /// The names of the failed cases.
    static func failed(_ results: [ServerCheckResult]) -> Set<String> {
        Set(results.filter { $0.outcome == .failed }.map(\.name))
    }

    /// Each failure as `name@version: expected …; got …`, for messages.
    static func failures(_ results: [ServerCheckResult]) -> String {
        results.filter { $0.outcome == .failed }.map {
            "\($0.name)@\($0.version): expected \($0.expected ?? "?"); got \($0.detail)"
        }
        .joined(separator: "\n")
    }

    /// The cases skipped before interop 6 because the version does not define what they check.
    /// The cases of what the newest drafts added, which run from interop 9.
    static let fromInterop9: Set<String> = ["get-offset", "append-past-length"]

    /// The cases that need the profile's max-size.
    static let needsMaxSize: Set<String> = ["max-size", "limits-on-announcement"]

    static let beforeInterop6: Set<String> = [
        "options", "length-mismatch", "max-size", "append-without-content-type", "append-wrong-content-type",
    ]
}
