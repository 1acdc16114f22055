import ChaosProxy
import Foundation
import Glibc
import SquallNet
import TLSKit
import TestSupport
import Testing

@testable import SquallCLI

/// `squall proxy` as a user runs it: spawned in front of a spawned `squall server`, with curl through it.
@Suite struct ProxyCommandTests {
    /// A `squall proxy` child process; ready once it printed its URL lines.
    final class ProxyProcess {
        let process = Process()
        let lines: [String]
        private let errors = Pipe()

        init(_ arguments: [String], lineCount: Int) throws {
            let output = Pipe()
            process.executableURL = URL(fileURLWithPath: SquallBinaryTests.binary)
            process.arguments = ["proxy"] + arguments
            process.standardOutput = output
            process.standardError = errors
            process.standardInput = FileHandle.nullDevice
            try process.run()
            var lines: [String] = []
            do {
                for _ in 0..<lineCount {
                    lines.append(try ServerProcess.nextLine(of: output.fileHandleForReading.fileDescriptor))
                }
            } catch {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                throw error
            }
            self.lines = lines
        }

        deinit {
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
            }
        }

        /// Sends `signal`, waits for the exit, returns the status and stderr.
        func stop(with signal: Int32 = SIGTERM) -> (status: Int32, errors: String) {
            kill(process.processIdentifier, signal)
            process.waitUntilExit()
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            return (process.terminationStatus, text)
        }
    }

    static let scenario = """
        {"name": "manual", "seed": 9, "faults": [
          {"name": "first-busy", "match": {"method": "POST", "nth-request": 1}, "action": "respond", "status": 503,
           "headers": {"Retry-After": "1"}},
          {"name": "never", "match": {"method": "DELETE"}, "action": "reset"}
        ]}
        """

    @Test(.enabled(if: ServerProcessTests.hasCurl, "needs /usr/bin/curl (Tools/setup.sh installs it)"))
    func curlThroughTheProxyMeetsTheScenarioFaultThenTheServer() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        _ = try CertificateAuthority.loadOrCreate(directory: folder.file("ca"))
        let server = try ServerProcess(store: folder.file("store"))
        let scenario = try folder.write(Self.scenario, to: "scenario.json")
        let proxy = try ProxyProcess(
            [
                "--upstream", server.url, "--ca", folder.file("ca"), "--api", "127.0.0.1:0", "--scenario", scenario,
                "--transcript", folder.file("transcript.jsonl"), "--pcap", folder.file("decrypted.pcap"), "--pcap-wire",
                folder.file("wire.pcap"), "--keylog", folder.file("keylog.txt"),
            ], lineCount: 3)
        #expect(proxy.lines[0].hasPrefix("https://127.0.0.1:"))
        #expect(proxy.lines[1].hasPrefix("http://127.0.0.1:"))
        #expect(proxy.lines[2] == folder.file("ca") + "/ca.pem")
        let content = try folder.write(String(repeating: "squall ", count: 10_000), to: "content")
        // HTTP/1.1, which the proxy serves beside HTTP/2 (its default): the captures below are read as HTTP/1.1.
        let upload = [
            "--http1.1", "-o", "/dev/null", "-w", "%{http_code}", "--cacert", proxy.lines[2], "-H",
            "Upload-Draft-Interop-Version: 6",
            "-H", "Upload-Complete: ?1", "--data-binary", "@" + content, proxy.lines[0] + "/upload",
        ]
        #expect(try ServerProcessTests().curl(upload).output == ["503"])
        #expect(try ServerProcessTests().curl(upload).output == ["201"])
        let metrics = try ServerProcessTests().curl([proxy.lines[1] + "/metrics"]).output
        #expect(metrics.contains("squall_proxy_faults_fired_total{rule=\"first-busy\"} 1"))
        let ended = proxy.stop()
        #expect(ended.status == 143)
        #expect(ended.errors.contains("faults that never fired: never"))
        let transcript = try String(contentsOfFile: folder.file("transcript.jsonl"), encoding: .utf8)
        let events = transcript.split(separator: "\n")
        #expect(events.filter { $0.contains(#""event":"fault""#) }.count == 1)
        #expect(events.filter { $0.contains(#""event":"open""#) }.count == 2)
        try Self.checkCaptures(in: folder, stderr: ended.errors)
    }

    /// The decrypted capture shows both creations on the client leg, the one that passed on the upstream leg,
    /// and both answers; the wire capture (when live capture is permitted) decrypts with the key log.
    static func checkCaptures(in folder: TLSFixtures.TemporaryDirectory, stderr: String) throws {
        let pcap = folder.file("decrypted.pcap")
        #expect(try Tshark.problems(pcap).isEmpty)
        // Heads as they arrive: the answered-early POST's body never completes, and body reassembly would hide it.
        // Every message of a packet counts: under load one read can carry a 104 and the 201 after it.
        let heads = ["http.desegment_body": "FALSE"]
        let methods = try Tshark.values(pcap, filter: "http.request", "http.request.method", options: heads)
        #expect(methods == ["POST", "POST", "POST"], "client leg: both creations; upstream leg: the one let through")
        let codes = try Tshark.values(pcap, filter: "http.response", "http.response.code")
        #expect(codes.filter { $0 == "503" }.count == 1, "\(codes)")
        #expect(codes.filter { $0 == "201" }.count == 2, "\(codes)")
        guard Tshark.canCaptureLive else {
            #expect(stderr.contains("CAP_NET_RAW"))
            return
        }
        #expect(!stderr.contains("wire capture"))
        let decrypted = try Tshark.fields(
            folder.file("wire.pcap"), filter: #"tls && http.request.method == "POST""#, ["http.request.method"])
        #expect(decrypted.isEmpty)
        let keyed = try Tshark.values(
            folder.file("wire.pcap"), filter: "tls && http.request", "http.request.method",
            options: ["tls.keylog_file": folder.file("keylog.txt")].merging(heads) { $1 })
        #expect(keyed == ["POST", "POST"])
    }

    @Test func aBadScenarioNamesTheFileAndTheJSONPath() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let scenario = try folder.write(
            #"{"faults": [{"name": "x", "action": "bandwidth", "rate": "0"}]}"#, to: "bad.json")
        let result = try TLSFixtures.runTool(
            SquallBinaryTests.binary, ["proxy", "--upstream", "http://127.0.0.1:9", "--plain", "--scenario", scenario])
        #expect(result.status == 1)
        #expect(result.standardError.contains("--scenario \(scenario): faults[0].rate"), "\(result.standardError)")
    }

    @Test(arguments: [
        (["--listen", "127.0.0.1:0"], "--upstream URL is required"),
        (["--upstream", "ftp://x:1"], "the scheme must be http or https"),
        (["--upstream", "http://127.0.0.1:9", "--plain", "--mode", "udp"], "--mode must be http or tcp"),
        (["--upstream", "http://127.0.0.1:9", "--plain", "--upstream-insecure"], "need an https:// upstream"),
        (
            ["--upstream", "http://127.0.0.1:9", "--plain", "--upstream-at-accept"],
            "--upstream-at-accept needs --mode tcp"
        ),
        (
            ["--upstream", "http://127.0.0.1:9", "--plain", "--api", "10.0.0.1:80"],
            "is not a loopback address: anyone on that network could steer the proxy; add --api-token T"
        ),
        (["--upstream", "http://127.0.0.1:9", "--plain", "--pcap", "-"], "--pcap needs a file"),
        (
            ["--upstream", "http://127.0.0.1:9", "--plain", "--upstream-http2", "yes"],
            "--upstream-http2 must be auto, on or off, not 'yes'"
        ),
        (
            ["--upstream", "http://127.0.0.1:9", "--plain", "--http2", "off", "--upstream-http2", "on"],
            "--upstream-http2 on needs clients that may speak HTTP/2"
        ),
        (
            ["--upstream", "http://127.0.0.1:9", "--plain", "--head-timeout", "0ms"],
            "--head-timeout must be more than 0"
        ),
        (["--upstream", "http://127.0.0.1:9", "--plain", "--idle-timeout", "1"], "--idle-timeout must be a duration"),
        (["--upstream", "http://127.0.0.1:9", "--plain", "--max-connections", "-3"], "--max-connections must be a"),
        (
            ["--upstream", "http://127.0.0.1:9", "--plain", "--api-max-connections", "8"],
            "--api-max-connections needs --api"
        ),
        (
            ["--upstream", "http://127.0.0.1:9", "--plain", "--api", "127.0.0.1:0", "--api-head-timeout", "soon"],
            "--api-head-timeout must be a duration"
        ),
    ])
    func usageMistakesExitWithTwo(arguments: [String], message: String) throws {
        let result = try TLSFixtures.runTool(SquallBinaryTests.binary, ["proxy"] + arguments)
        #expect(result.status == 2)
        #expect(result.standardError.contains(message), "\(result.standardError)")
    }
}

/// The limit flags of `squall proxy` in process: its listeners' and its control API's, over their defaults.
struct ProxyLimitFlagsTests {
    @Test func flagsBecomeTheLimits() throws {
        let parsed = try CommandLineParser.parse(
            [
                "--upstream", "http://127.0.0.1:9", "--plain", "--head-timeout", "3s", "--idle-timeout", "1500ms",
                "--max-connections", "5000", "--api", "127.0.0.1:0", "--api-head-timeout", "1s",
                "--api-idle-timeout", "5m", "--api-max-connections", "8",
            ], for: ProxyCommand.spec)
        let configuration = try ProxyCommand.makeConfiguration(parsed, environment: [:])
        #expect(
            configuration.limits
                == ListenerLimits(headTimeout: .seconds(3), idleTimeout: .milliseconds(1500), maximumConnections: 5000))
        #expect(
            try ProxyCommand.apiLimits(parsed)
                == ListenerLimits(headTimeout: .seconds(1), idleTimeout: .seconds(300), maximumConnections: 8))

        let plain = try CommandLineParser.parse(
            ["--upstream", "http://127.0.0.1:9", "--plain"], for: ProxyCommand.spec)
        #expect(
            try ProxyCommand.makeConfiguration(plain, environment: [:]).limits == ChaosProxyConfiguration.defaultLimits)
        #expect(try ProxyCommand.apiLimits(plain) == ControlServer.defaultLimits)
        #expect(
            ChaosProxyConfiguration.defaultLimits
                == ListenerLimits(headTimeout: .seconds(10), idleTimeout: .seconds(90), maximumConnections: 4096))
        #expect(
            ControlServer.defaultLimits
                == ListenerLimits(headTimeout: .seconds(10), idleTimeout: .seconds(60), maximumConnections: 64))
    }

    @Test func transcriptMemoryIsASizeAndDefaultsTo8MiB() throws {
        let plain = ["--upstream", "http://127.0.0.1:9", "--plain"]
        let parsed = try CommandLineParser.parse(plain + ["--transcript-memory", "512KiB"], for: ProxyCommand.spec)
        #expect(try ProxyCommand.makeConfiguration(parsed, environment: [:]).transcriptMemory == 512 * 1024)
        let bare = try CommandLineParser.parse(plain, for: ProxyCommand.spec)
        #expect(try ProxyCommand.makeConfiguration(bare, environment: [:]).transcriptMemory == 8 << 20)
        for bad in ["0", "lots"] {
            let wrong = try CommandLineParser.parse(plain + ["--transcript-memory", bad], for: ProxyCommand.spec)
            #expect(throws: UsageError.self) { try ProxyCommand.makeConfiguration(wrong, environment: [:]) }
        }
    }
}
