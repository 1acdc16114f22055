import ChaosProxy
import FaultEngine
import HTTPWire
import ProxyFlow
import SquallNet
import TLSKit
import TestSupport
import UploadServer

/// A reference upload server behind a chaos proxy, both on 127.0.0.1 port 0, with temporary folders.
final class ProxyFixture {
    let folder: TLSFixtures.TemporaryDirectory
    let server: UploadServer
    let proxy: ChaosProxy
    let authority: CertificateAuthority?

    init(
        rules: [FaultRule] = [], seed: UInt64 = 7, tls: Bool = false, upstreamTLS: Bool = false,
        serverHTTP2: Bool = false, mode: ConnectionFlow.Mode = .http,
        transcriptPath: String? = nil, adjust: (inout ChaosProxyConfiguration) -> Void = { _ in }
    ) throws {
        folder = try TLSFixtures.TemporaryDirectory()
        var serverConfiguration = UploadServerConfiguration(
            certificateAuthorityDirectory: upstreamTLS ? folder.file("upstream-ca") : nil,
            storeDirectory: folder.file("store"))
        serverConfiguration.http2 = serverHTTP2
        server = try UploadServer(configuration: serverConfiguration)
        authority = tls ? try CertificateAuthority.loadOrCreate(directory: folder.file("ca")) : nil
        var configuration = ChaosProxyConfiguration(
            listen: try SocketAddress(parsing: "127.0.0.1:0"), upstream: try UpstreamTarget(parsing: server.url))
        configuration.rules = rules
        configuration.seed = seed
        configuration.authority = authority
        configuration.mode = mode
        configuration.transcriptPath = transcriptPath
        if upstreamTLS { configuration.upstreamTrust = .caFile(folder.file("upstream-ca") + "/ca.pem") }
        adjust(&configuration)
        proxy = try ChaosProxy(configuration: configuration)
    }

    deinit {
        proxy.stop()
        server.stop()
    }

    /// A new client connection to the proxy (TLS when the fixture has a CA, with `serverName` as SNI).
    func connect(serverName: String? = nil) throws -> any ByteStream {
        let socket = try TCPConnector.connect(to: proxy.address)
        guard let authority else { return PlainStream(socket: socket) }
        let context = try TLSContext(client: TLSClientConfiguration(trust: .caFile(authority.certificatePath)))
        let stream = try TLSStream(socket: socket, context: context, serverName: serverName ?? "127.0.0.1")
        try stream.handshake(timeout: .seconds(10))
        return stream
    }
}
