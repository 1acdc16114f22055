import Foundation
import TLSKit
import TestSupport
import Testing

struct KeyLogTests {
    /// The labels each version logs (NSS key log format; RFC 8446 secrets for TLS 1.3).
    private static let expectedLabels: [TLSVersion: Set<String>] = [
        .tls12: ["CLIENT_RANDOM"],
        .tls13: [
            "CLIENT_HANDSHAKE_TRAFFIC_SECRET", "SERVER_HANDSHAKE_TRAFFIC_SECRET",
            "CLIENT_TRAFFIC_SECRET_0", "SERVER_TRAFFIC_SECRET_0", "EXPORTER_SECRET",
        ],
    ]

    private struct Line: Hashable {
        let label: String
        let clientRandom: String
        let secret: String
    }

    private func lines(of path: String) throws -> [Line] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { text in
            let fields = text.split(separator: " ").map(String.init)
            try #require(fields.count == 3, "malformed key log line: \(text)")
            return Line(label: fields[0], clientRandom: fields[1], secret: fields[2])
        }
    }

    private func isHex(_ text: String, length: Int) -> Bool {
        text.count == length && text.allSatisfy { "0123456789abcdef".contains($0) }
    }

    @Test(arguments: TLSVersion.allCases)
    func bothSidesLogTheSessionSecrets(version: TLSVersion) throws {
        let directory = try TLSFixtures.TemporaryDirectory()
        let authority = try TLSFixtures.makeCertificateAuthority(in: directory)
        let serverLog = try KeyLog(path: directory.file("server.keys"))
        let clientLog = try KeyLog(path: directory.file("client.keys"))
        let server = try TLSTestServer(
            context: TLSFixtures.serverContext(authority: authority) { $0.keyLog = serverLog },
            handler: TLSTestServer.echo)
        let client = try TLSFixtures.clientContext(authority: authority) {
            $0.keyLog = clientLog
            $0.maximumVersion = version
        }
        let stream = try TLSStream.connect(to: server.address, context: client, serverName: "keylog.test")
        #expect(try ByteStreamDriver.exchange(stream, sending: Array("secret".utf8)) == Array("secret".utf8))
        #expect(server.nextConnection()?.error == nil)

        let serverLines = try lines(of: serverLog.path)
        let clientLines = try lines(of: clientLog.path)
        #expect(Set(clientLines.map(\.label)) == KeyLogTests.expectedLabels[version])
        #expect(Set(serverLines) == Set(clientLines))
        let randoms = Set(clientLines.map(\.clientRandom))
        #expect(randoms.count == 1)
        #expect(randoms.allSatisfy { isHex($0, length: 64) })
        // A TLS 1.2 master secret is 48 bytes; a TLS 1.3 secret is as long as the suite's hash.
        let sha384 = stream.session?.cipher.hasSuffix("SHA384") == true
        let secretLength = version == .tls12 || sha384 ? 96 : 64
        #expect(clientLines.allSatisfy { isHex($0.secret, length: secretLength) })

        let mode = try FileManager.default.attributesOfItem(atPath: clientLog.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func eachContextWritesOnlyToItsOwnLog() throws {
        let directory = try TLSFixtures.TemporaryDirectory()
        let authority = try TLSFixtures.makeCertificateAuthority(in: directory)
        let server = try TLSTestServer(
            context: TLSFixtures.serverContext(authority: authority), handler: TLSTestServer.echo)
        var randoms: [Set<String>] = []
        for name in ["first.keys", "second.keys"] {
            let log = try KeyLog(path: directory.file(name))
            let client = try TLSFixtures.clientContext(authority: authority) { $0.keyLog = log }
            let stream = try TLSStream.connect(to: server.address, context: client, serverName: "one.test")
            _ = try ByteStreamDriver.exchange(stream, sending: [1])
            _ = server.nextConnection()
            let written = try lines(of: log.path)
            #expect(written.count == 5)
            randoms.append(Set(written.map(\.clientRandom)))
        }
        #expect(randoms[0].count == 1)
        #expect(randoms[1].count == 1)
        #expect(randoms[0] != randoms[1])
    }

    @Test func concurrentAppendsKeepLinesWhole() throws {
        let directory = try TLSFixtures.TemporaryDirectory()
        let log = try KeyLog(path: directory.file("many.keys"))
        DispatchQueue.concurrentPerform(iterations: 8) { writer in
            for index in 0..<200 {
                log.append("LABEL \(String(repeating: String(writer), count: 64)) \(index)")
            }
        }
        log.close()
        log.append("DROPPED after close")
        let written = try lines(of: log.path)
        #expect(written.count == 1600)
        #expect(written.allSatisfy { $0.label == "LABEL" && Set($0.clientRandom).count == 1 })
    }
}
