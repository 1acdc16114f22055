import ChaosProxy
import FaultEngine
import Foundation
import ProxyTranscript
import SquallNet
import TLSKit
import TestSupport
import Testing
import UploadServer

/// An outside HTTP/2 client we did not write the protocol of: Go's net/http (its bundled HTTP/2 transport, ALPN
/// `h2`), through `Tests/Interop/go-resume` (a 4 MiB interop-8 upload that learns its Location from the 104 and
/// resumes with HEAD and PATCH after an interruption), through the chaos proxy with `--http2 on` to the reference
/// server. A `reset-stream` at 1 MiB resets Go's stream; Go resumes over HTTP/2 and the upload completes.
@Suite(.serialized)
struct GoHTTP2InteropTests {
    /// The reference server behind the proxy (TLS, HTTP/2 offered), with `rules`.
    private final class Setup {
        let folder: TLSFixtures.TemporaryDirectory
        let server: UploadServer
        let authority: CertificateAuthority
        let proxy: ChaosProxy

        init(rules: [FaultRule]) throws {
            folder = try TLSFixtures.TemporaryDirectory()
            server = try UploadServer(configuration: UploadServerConfiguration(storeDirectory: folder.file("store")))
            authority = try CertificateAuthority.loadOrCreate(directory: folder.file("ca"))
            var configuration = ChaosProxyConfiguration(
                listen: try SocketAddress(parsing: "127.0.0.1:0"), upstream: try UpstreamTarget(parsing: server.url))
            configuration.authority = authority
            configuration.rules = rules
            configuration.http2 = true
            proxy = try ChaosProxy(configuration: configuration)
        }

        deinit {
            proxy.stop()
            server.stop()
        }

        func upload(_ options: [String] = []) throws -> ExternalTool.Outcome {
            let client = try GoClientInteropTests.build(into: folder, program: "go-resume")
            return try client.execute(
                options + [proxy.url + "/upload"], environment: ["SSL_CERT_FILE": authority.certificatePath],
                limit: GoClientInteropTests.patience)
        }
    }

    private static let reset = #"""
        {"name": "cancel", "match": {"method": "POST"}, "trigger": {"at-offset": "1MiB"}, "action": "reset-stream",
         "code": "CANCEL"}
        """#

    @Test func goResumesItsHTTP2UploadAfterAResetStream() throws {
        let setup = try Setup(rules: [try FaultRule.parse(Self.reset)])
        let outcome = try setup.upload()
        #expect(outcome.status == 0, "go-resume: \(outcome.standardOutput) \(outcome.standardError)")
        let lines = outcome.standardOutput.split(separator: "\n").map(String.init)
        // Go 1.19 says "stream error: stream ID 1; CANCEL"; newer ones add "; received from peer".
        #expect(
            lines.first?.hasPrefix("creation failed: ") == true && lines.first?.contains("CANCEL") == true, "\(lines)")
        #expect(lines.dropFirst().first == "offset HTTP/2.0 1048576", "\(lines)")
        #expect(lines.dropFirst(2).first == "append HTTP/2.0 200", "\(lines)")
        let record = try #require(setup.server.uploads().first)
        #expect(setup.server.uploads().count == 1 && record.complete && record.durableOffset == 4 << 20)
        #expect(setup.proxy.neverFired.isEmpty)
    }

    /// Negative controls: without the fault Go's creation completes over HTTP/2 in one request, and with the fault
    /// but no resume allowed the upload is left incomplete at the reset's offset: the resume is what completed it.
    @Test func withoutTheFaultOneRequestAndWithoutResumesNoUpload() throws {
        let clean = try Setup(rules: [])
        let whole = try clean.upload()
        #expect(whole.status == 0, "go-resume: \(whole.standardError)")
        #expect(whole.standardOutput == "creation HTTP/2.0 200\n", "\(whole.standardOutput)")

        let cut = try Setup(rules: [try FaultRule.parse(Self.reset)])
        let stopped = try cut.upload(["-attempts", "0"])
        #expect(stopped.status == 1)
        #expect(stopped.standardError.contains("not complete after 0 resumes"), "\(stopped.standardError)")
        // Once the proxy has closed the stream and the client's connection, the server's own answer (HEAD, straight
        // to it) says the upload stopped at the reset.
        let closed = cut.proxy.waitForTranscript(timeout: .seconds(10)) { transcript in
            transcript.events.filter { if case .closed = $0.kind { true } else { false } }.count >= 2
        }
        #expect(closed)
        let record = try #require(cut.server.uploads().first)
        #expect(!record.complete)
        let head = try ServerProcessTests().curl([
            "-I", "-H", "Upload-Draft-Interop-Version: 8", cut.server.url + "/upload/" + record.id,
        ])
        #expect(head.output.contains { $0.lowercased() == "upload-offset: 1048576" }, "\(head.output)")
    }

    /// Three uploads at once from one Go client; the stream of the second (X-Batch: 2) brings a `GOAWAY` that refuses
    /// it (`last-stream: before`). Go sends the refused request again on a new connection by itself (its body can be
    /// produced again), and all three complete, each with one creation: none was failed or resumed.
    @Test func goSendsAStreamAGoawayRefusedAgainOnANewConnection() throws {
        let rule = #"""
            {"name": "drain", "match": {"header": {"name": "X-Batch", "value": "2"}}, "action": "goaway",
             "last-stream": "before", "times": 1}
            """#
        let setup = try Setup(rules: [try FaultRule.parse(rule)])
        let outcome = try setup.upload(["-parallel", "3", "-mib", "1"])
        #expect(outcome.status == 0, "go-resume: \(outcome.standardOutput) \(outcome.standardError)")
        let lines = outcome.standardOutput.split(separator: "\n").map(String.init).sorted()
        #expect(lines == (1...3).map { "[\($0)] creation HTTP/2.0 200" }, "\(lines)")
        let transcript = setup.proxy.transcript
        let fired = transcript.events.compactMap { event -> String? in
            if case .faultFired(let fault) = event.kind { return fault.rule }
            return nil
        }
        #expect(fired == ["drain"])
        let refused = transcript.events.filter { event in
            if case .streamReset(.proxy, let code) = event.kind { return code == 7 }  // REFUSED_STREAM
            return false
        }
        #expect(!refused.isEmpty, "no stream was refused")
        let records = setup.server.uploads()
        let summary = records.map { "\($0.id.prefix(6)) \($0.complete) \($0.durableOffset)" }
        #expect(summary.count == 3, "\(summary)")
        #expect(records.allSatisfy { $0.complete && $0.durableOffset == 1 << 20 }, "\(summary)")
    }
}
