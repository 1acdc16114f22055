import ChaosProxy
import Foundation
import HTTPWire
import SquallNet
import TestSupport
import Testing

/// The proxy's captures on their own: the decrypted pcap of an exchange the proxy answered itself, and a live
/// capture that cannot start.
struct ProxyCaptureTests {
    /// A proxy in front of a port nobody listens on, capturing into `folder`, live on `device`.
    static func proxy(capturingInto folder: TLSFixtures.TemporaryDirectory, device: String) throws -> ChaosProxy {
        var configuration = ChaosProxyConfiguration(
            listen: try SocketAddress(parsing: "127.0.0.1:0"), upstream: try UnreachableUpstream.target())
        configuration.decryptedCapturePath = folder.file("decrypted.pcap")
        configuration.wireCapturePath = folder.file("wire.pcap")
        configuration.wireCaptureDevice = device
        return try ChaosProxy(configuration: configuration)
    }

    @Test func aLiveCaptureThatCannotStartIsOneLineAndTheDecryptedCaptureStillWorks() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let proxy = try Self.proxy(capturingInto: folder, device: "squall-no-such-device")
        let problems = proxy.captureProblems
        #expect(problems.count == 1)
        let problem = try #require(problems.first)
        #expect(problem.contains("squall-no-such-device") && problem.contains("decrypted capture still works"))
        #expect(!problem.contains("\n"))

        let stream = PlainStream(socket: try TCPConnector.connect(to: proxy.address))
        try stream.writeAll(Array("GET /upload HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8))
        let answer = try stream.readToEnd(limit: 1 << 16, deadline: .now + .seconds(10))
        stream.close()
        #expect(String(decoding: answer, as: UTF8.self).hasPrefix("HTTP/1.1 502"))
        #expect(
            proxy.waitForTranscript(timeout: .seconds(10)) { transcript in
                transcript.events.contains { if case .closed = $0.kind { true } else { false } }
            })
        proxy.stop()
        #expect(proxy.captureProblems == problems)
        #expect(!FileManager.default.fileExists(atPath: folder.file("wire.pcap")))

        let pcap = folder.file("decrypted.pcap")
        #expect(try Tshark.problems(pcap).isEmpty)
        let exchange = try Tshark.fields(pcap, filter: "http", ["http.request.method", "http.response.code"])
        #expect(exchange.map { $0.joined(separator: "/") } == ["GET/", "/502"])
        // The client leg only (the upstream was never reached): the client's FIN and the proxy's after its answer.
        let fins = try Tshark.fields(pcap, filter: "tcp.flags.fin == 1", ["tcp.stream"])
        #expect(fins.map { $0[0] } == ["0", "0"])
        #expect(try Tshark.fields(pcap, filter: "tcp.flags.reset == 1", ["tcp.stream"]).isEmpty)
    }

    @Test func anUnwritableDecryptedCaptureRefusesToStartNamingTheFile() throws {
        var configuration = ChaosProxyConfiguration(
            listen: try SocketAddress(parsing: "127.0.0.1:0"),
            upstream: UpstreamTarget(host: "127.0.0.1", port: 9, tls: false))
        configuration.decryptedCapturePath = "/no/such/folder/decrypted.pcap"
        #expect {
            _ = try ChaosProxy(configuration: configuration)
        } throws: { error in
            (error as? ChaosProxyError)?.code == .captureFile
                && "\(error)".contains("/no/such/folder/decrypted.pcap")
        }
    }
}
