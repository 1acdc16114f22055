import Foundation
import SquallNet
import TLSKit
import TestSupport
import Testing
import UploadServer

@testable import SquallCLI

struct ServerCommandTests {
    func squall(_ arguments: [String]) -> (Int32, String, String) {
        let console = Console.capturing()
        let status = SquallCommand.run(
            arguments: arguments, context: CommandContext(console: console, environment: [:]))
        return (status, console.standardOutput, console.standardError)
    }

    @Test(arguments: [
        (["--bogus"], "unknown option '--bogus'"),
        (["--max-size", "lots"], "--max-size must be a size"),
        (["--max-append-size", "-1"], "--max-append-size must be a size"),
        (["--progress-interval", "1XB"], "--progress-interval must be a size"),
        (["--progress-limit", "-1"], "--progress-limit must be a number of progress 104s per request"),
        (["--progress-limit", "unlimited"], "--progress-limit must be a number of progress 104s per request"),
        (["--progress-spacing", "0"], "--progress-spacing must be a duration such as 250ms"),
        (["--progress-spacing", "1.5s"], "--progress-spacing must be a duration such as 250ms"),
        (["--interop", "3,11"], "--interop must list interop versions"),
        (["--interop", ""], "--interop must list interop versions"),
        (["--max-age", "10"], "--max-age must be a duration"),
        (["--max-age", "5w"], "--max-age must be a duration"),
        (["--resumable", "maybe"], "--resumable must be on or off"),
        (["--listen", "nowhere"], "--listen must be HOST:PORT"),
        (["--ca", "/tmp/ca"], "--ca needs --tls"),
        (["--store"], "option '--store' needs a value"),
        (["--token-ttl", "10m"], "--token-ttl needs --auth"),
        (["--auth", "--token-ttl", "10"], "--token-ttl must be a duration"),
        (["--retention", "forever"], "--retention must be a duration"),
        (["--head-timeout", "0s"], "--head-timeout must be more than 0"),
        (["--head-timeout", "10"], "--head-timeout must be a duration"),
        (["--idle-timeout", "1.5s"], "--idle-timeout must be a duration"),
        (["--max-connections", "0"], "--max-connections must be a whole number of connections of 1 or more"),
        (["--max-connections", "lots"], "--max-connections must be a whole number of connections of 1 or more"),
    ])
    func flagErrorsExitWithStatus2(arguments: [String], message: String) {
        let (status, out, err) = squall(["server"] + arguments)
        #expect(status == 2)
        #expect(out.isEmpty)
        #expect(err.hasPrefix("squall server: "))
        #expect(err.contains(message), "\(err)")
    }

    @Test func flagsBecomeTheConfiguration() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let ca = try CertificateAuthority.loadOrCreate(directory: folder.file("ca")).directory
        let parsed = try CommandLineParser.parse(
            [
                "--listen", "127.0.0.1:0", "--tls", "--ca", ca, "--store", "/tmp/squall-store",
                "--log", "/tmp/squall-server.log",
                "--interop", "6,8", "--max-size", "1GiB", "--max-append-size", "8MiB", "--max-age", "10m",
                "--resumable", "off", "--progress-interval", "0", "--progress-limit", "none", "--progress-spacing",
                "250ms", "--auth", "--token-ttl", "90s", "--retention", "2h", "--head-timeout", "2500ms",
                "--idle-timeout", "2m", "--max-connections", "20",
            ], for: ServerCommand.spec)
        let configuration = try ServerCommand.makeConfiguration(parsed, environment: [:])
        #expect(configuration.listenAddress.description == "127.0.0.1:0")
        #expect(configuration.certificateAuthorityDirectory == ca)
        // An explicit --ca must hold a CA: a typo must not mint a new one that no client trusts.
        #expect(throws: UsageError.self) {
            try ServerCommand.makeConfiguration(
                CommandLineParser.parse(["--tls", "--ca", folder.file("typo")], for: ServerCommand.spec),
                environment: [:])
        }
        #expect(configuration.storeDirectory == "/tmp/squall-store")
        #expect(configuration.logPath == "/tmp/squall-server.log")
        let rules = configuration.uploadProtocol
        #expect(rules.versions.map(\.rawValue).sorted() == [6, 8])
        #expect(rules.limits.maxSize == 1 << 30)
        #expect(rules.limits.maxAppendSize == 8 << 20)
        #expect(rules.limits.maxAge == 600)
        #expect(!rules.resumable)
        #expect(rules.progressInterval == 0)
        #expect(rules.progressLimit == nil)
        #expect(rules.progressSpacing == .milliseconds(250))
        #expect(configuration.authentication == AuthenticationConfiguration(tokenLifetime: 90))
        #expect(configuration.completedRetention == 7200)
        #expect(
            configuration.limits
                == ListenerLimits(headTimeout: .milliseconds(2500), idleTimeout: .seconds(120), maximumConnections: 20))

        let defaults = try ServerCommand.makeConfiguration(
            CommandLineParser.parse([], for: ServerCommand.spec), environment: [:])
        #expect(defaults.certificateAuthorityDirectory == nil)
        #expect(defaults.storeDirectory == nil)
        #expect(defaults.logPath == nil)
        #expect(defaults.uploadProtocol.resumable)
        #expect(defaults.uploadProtocol.versions.map(\.rawValue).sorted() == Array(3...10))
        #expect(defaults.uploadProtocol.limits.maxSize == nil)
        #expect(defaults.uploadProtocol.progressInterval == 1 << 20)
        #expect(defaults.uploadProtocol.progressLimit == 3)
        #expect(defaults.uploadProtocol.progressSpacing == .seconds(1))
        #expect(defaults.authentication == nil)
        #expect(defaults.completedRetention == 86_400)
        #expect(
            defaults.limits
                == ListenerLimits(headTimeout: .seconds(10), idleTimeout: .seconds(60), maximumConnections: 1024))

        let authDefaults = try ServerCommand.makeConfiguration(
            CommandLineParser.parse(["--auth"], for: ServerCommand.spec), environment: [:])
        #expect(authDefaults.authentication?.tokenLifetime == 3600)
    }

    /// `--progress-limit` takes any count from 0 (no progress 104s); `--progress-spacing` any duration from 0s.
    @Test(arguments: [("0", "0s", 0, Duration.zero), ("7", "1500us", 7, .microseconds(1500))])
    func progressLimitAndSpacing(limit: String, spacing: String, count: Int, duration: Duration) throws {
        let parsed = try CommandLineParser.parse(
            ["--progress-limit", limit, "--progress-spacing", spacing], for: ServerCommand.spec)
        let rules = try ServerCommand.makeConfiguration(parsed, environment: [:]).uploadProtocol
        #expect(rules.progressLimit == count)
        #expect(rules.progressSpacing == duration)
    }

    /// `--max-age` reads the one duration grammar: milliseconds and days too (a fraction of a second is dropped,
    /// never to 0, as in scenario files).
    @Test(arguments: [("500ms", Int64(1)), ("1d", 86_400), ("90s", 90)])
    func maxAgeTakesEveryDurationUnit(text: String, seconds: Int64) throws {
        let parsed = try CommandLineParser.parse(["--max-age", text], for: ServerCommand.spec)
        let configuration = try ServerCommand.makeConfiguration(parsed, environment: [:])
        #expect(configuration.uploadProtocol.limits.maxAge == seconds)
    }

    /// A log that cannot be opened is a failure (status 1) naming the file, found before anything is served.
    @Test func anUnopenableLogExitsWithStatus1NamingIt() {
        let path = NSTemporaryDirectory() + "squall-missing-\(UUID().uuidString)/server.log"
        let (status, out, err) = squall(["server", "--listen", "127.0.0.1:0", "--log", path])
        #expect(status == 1)
        #expect(out.isEmpty)
        #expect(err.hasPrefix("squall server: error: cannotOpen: cannot open the server log \(path): "), "\(err)")
        #expect(err.contains("No such file or directory"))
    }

    @Test(arguments: [("30s", 30), ("10m", 600), ("1h", 3600), ("2d", 172_800), ("0s", 0)])
    func durationsTakeAUnit(text: String, seconds: Int64) throws {
        #expect(try ServerCommand.seconds(text, option: "--max-age") == seconds)
    }

    /// The built binary prints the URL and the store folder, then stops cleanly on SIGTERM with status 143; its
    /// log has the start and the stop.
    @Test func theBinaryServesUntilSIGTERM() throws {
        let store = NSTemporaryDirectory() + "squall-server-test-\(UUID().uuidString)"
        let log = store + ".log"
        defer {
            try? FileManager.default.removeItem(atPath: store)
            try? FileManager.default.removeItem(atPath: log)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: SquallBinaryTests.binary)
        process.arguments = ["server", "--listen", "127.0.0.1:0", "--store", store, "--log", log]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var text = ""
        while text.filter({ $0 == "\n" }).count < 2 {
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
        }
        let lines = text.split(separator: "\n").map(String.init)
        process.terminate()
        process.waitUntilExit()
        #expect(lines.count == 2)
        #expect(lines.first?.hasPrefix("http://127.0.0.1:") == true)
        #expect(lines.first.flatMap { Int($0.split(separator: ":").last ?? "") }.map { $0 > 0 } == true)
        #expect(lines.last == store)
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 143)
        let events = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        #expect(events.count == 2)
        #expect(events.first?.contains(#""event":"start","listen":"127.0.0.1:"#) == true)
        #expect(events.first?.hasSuffix(#","store":"\#(store)","recovered":0}"#) == true)
        #expect(events.last?.hasSuffix(#""event":"stop"}"#) == true)
    }
}
