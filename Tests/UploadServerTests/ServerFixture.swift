import HTTPWire
import ResumableUpload
import TLSKit
import TestSupport
import UploadServer
import UploadStore

/// A running `UploadServer` on 127.0.0.1:0 with its store in a temporary folder removed afterwards, plus the
/// request fields of each interop version.
final class ServerFixture {
    /// How clients reach the server: plain HTTP, or HTTPS with a leaf from a fresh local CA.
    enum Transport: CaseIterable, Sendable, CustomStringConvertible {
        case http, https

        var description: String { self == .http ? "HTTP" : "HTTPS" }
    }

    let folder: TLSFixtures.TemporaryDirectory
    let server: UploadServer
    /// The client context trusting the fixture's CA, for HTTPS.
    let tls: TLSContext?
    /// The fixture's CA, for HTTPS.
    let authority: CertificateAuthority?

    init(
        _ uploadProtocol: UploadProtocolConfiguration = UploadProtocolConfiguration(),
        transport: Transport = .http,
        configure: (inout UploadServerConfiguration) -> Void = { _ in }
    ) throws {
        folder = try TLSFixtures.TemporaryDirectory()
        var configuration = UploadServerConfiguration(
            storeDirectory: folder.file("store"), uploadProtocol: uploadProtocol)
        if transport == .https {
            let authority = try TLSFixtures.makeCertificateAuthority(in: folder)
            configuration.certificateAuthorityDirectory = authority.directory
            tls = try TLSFixtures.clientContext(authority: authority)
            self.authority = authority
        } else {
            tls = nil
            authority = nil
        }
        configure(&configuration)
        server = try UploadServer(configuration: configuration)
    }

    deinit {
        server.stop()
    }

    func client() throws -> RawHTTPClient {
        try RawHTTPClient(server, tls: tls)
    }

    /// The record of `id` in the store.
    func record(_ id: String) -> UploadRecord? {
        server.uploads().first { $0.id == id }
    }

    /// The id at the end of a `Location`.
    static func id(of location: String?) -> String {
        String(location?.split(separator: "/").last ?? "")
    }

    /// The fields of a creation that is (or is not) complete.
    static func creationFields(_ version: InteropVersion, complete: Bool = true) -> [(String, String)] {
        [
            (InteropVersion.fieldName, "\(version.rawValue)"),
            (version.completionFieldName, version.completionValue(complete: complete)),
        ]
    }

    /// The fields of an append at `offset` that completes the upload.
    static func appendFields(_ version: InteropVersion, offset: Int64) -> [(String, String)] {
        [
            (InteropVersion.fieldName, "\(version.rawValue)"),
            ("Upload-Offset", "\(offset)"),
            (version.completionFieldName, version.completionValue(complete: true)),
            ("Content-Type", "application/partial-upload"),
        ]
    }

    static func versionField(_ version: InteropVersion) -> [(String, String)] {
        [(InteropVersion.fieldName, "\(version.rawValue)")]
    }

    /// Seeded content of `count` bytes.
    static func content(_ count: Int, seed: UInt64 = 1) -> [UInt8] {
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    static func sha256(_ bytes: [UInt8]) -> String {
        MessageDigest.hex(of: bytes)
    }
}
