import Foundation
import Glibc
import HTTPWire
import SquallCore
import TLSKit
import TestSupport
import Testing
import UploadClient
import UploadServer

@testable import SquallCLI

/// `squall upload`: flags, a whole run against the reference server, and a kill -9 of the client mid-upload.
struct UploadCommandTests {
    func squall(_ arguments: [String]) -> (Int32, String, String) {
        let console = Console.capturing()
        let status = SquallCommand.run(
            arguments: arguments, context: CommandContext(console: console, environment: [:]))
        return (status, console.standardOutput, console.standardError)
    }

    /// Writes `count` seeded bytes to `path`; returns their SHA-256.
    static func write(_ count: Int, seed: UInt64, to path: String) throws -> String {
        var generator = SeededGenerator(seed: seed)
        var bytes = [UInt8](repeating: 0, count: count)
        for index in stride(from: 0, to: count, by: 8) {
            let word = generator.next()
            for offset in 0..<min(8, count - index) {
                bytes[index + offset] = UInt8(truncatingIfNeeded: word >> (offset * 8))
            }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return MessageDigest.hex(of: bytes)
    }

    @Test(arguments: [
        ([String](), "--to URL is required"),
        (["--to", "ftp://x/upload", "f"], "--to must be an http or https URL"),
        (["--to", "http://127.0.0.1:1/upload"], "name at least one FILE or DIR"),
        (["--to", "http://127.0.0.1:1/upload", "--interop", "11", "f"], "--interop must be 3 to 10, final or none"),
        (["--to", "http://127.0.0.1:1/upload", "--retry-limit", "-1", "f"], "--retry-limit must be a whole number"),
        (
            ["--to", "http://127.0.0.1:1/upload", "--inflight-limit", "0", "f"],
            "--inflight-limit must be a whole number"
        ),
        (["--to", "http://127.0.0.1:1/upload", "--append-size", "0", "f"], "--append-size must be above 0"),
        (
            ["--to", "http://127.0.0.1:1/upload", "--token", "a", "--token-url", "http://a/t", "f"],
            "exclude each other"
        ),
        (
            ["--to", "http://127.0.0.1:1/upload", "--token", "a", "--token-command", "echo b", "f"],
            "--token, --token-command exclude each other"
        ),
        (
            ["--to", "http://127.0.0.1:1/upload", "--token-path", "data.token", "f"],
            "--token-path shapes the request of --token-url, which is missing"
        ),
        (
            ["--to", "http://127.0.0.1:1/upload", "--token-url", "http://a/t", "--token-header", "nocolon", "f"],
            "--token-header must be 'NAME: VALUE'"
        ),
        (
            ["--to", "http://127.0.0.1:1/upload", "--server-profile", "/no/such/profile.json", "f"],
            "/no/such/profile.json: cannot read the file"
        ),
        (["--to", "http://127.0.0.1:1/upload", "/no/such/file"], "no such file or folder: /no/such/file"),
        (
            ["--to", "https://127.0.0.1:1/upload", "--ca", "/no/such/ca.pem", "f"],
            "--ca /no/such/ca.pem: no such readable file"
        ),
        (["--to", "http://127.0.0.1:1/upload", "--read-timeout", "5", "f"], "--read-timeout must be a duration"),
        (["--to", "http://127.0.0.1:1/upload", "--backoff", "1x", "f"], "--backoff must be a duration"),
        (["--to", "http://127.0.0.1:1/upload", "--resume-attempts", "x", "f"], "--resume-attempts must be a whole"),
        (
            ["--to", "http://127.0.0.1:1/upload", "--permanent-errors", "timedOut,bogus", "f"],
            "unknown job error 'bogus'"
        ),
    ])
    func flagMistakesExitWithStatus2(arguments: [String], message: String) {
        let (status, out, err) = squall(["upload"] + arguments)
        #expect(status == 2)
        #expect(out.isEmpty)
        #expect(err.hasPrefix("squall upload: "))
        #expect(err.contains(message), "\(err)")
    }

    /// `--backoff` reads the one duration grammar, days included.
    @Test func backoffTakesDays() throws {
        let flags = ["--to", "http://127.0.0.1:1/upload", "--backoff", "1d", "--backoff-limit", "2d", "f"]
        let options = try UploadOptions(try CommandLineParser.parse(flags, for: UploadCommand.spec))
        #expect(options.system.transfer.backoffBase == .seconds(86_400))
        #expect(options.system.transfer.backoffLimit == .seconds(172_800))
    }

    /// The token flags shape the token request; a profile gives the newest interop version and its auth unless
    /// flags say otherwise.
    @Test func tokenFlagsAndAProfileReachTheConfiguration() throws {
        let spec = UploadCommand.spec
        let flags = [
            "--to", "http://127.0.0.1:1/upload", "--token-url", "http://127.0.0.1:1/t", "--token-method", "PUT",
            "--token-body", "a=b", "--token-content-type", "text/plain", "--token-header", "X-One: 1",
            "--token-header", "X-Two: 2", "--token-path", "data.token", "f",
        ]
        let endpoint = try #require(
            try UploadOptions(try CommandLineParser.parse(flags, for: spec)).tokens as? TokenEndpoint)
        var expected = TokenRequest(url: "http://127.0.0.1:1/t")
        expected.method = "PUT"
        expected.body = "a=b"
        expected.contentType = "text/plain"
        expected.headers = ["X-One": "1", "X-Two": "2"]
        expected.tokenPath = "data.token"
        #expect(endpoint.request == expected)
        let command = try UploadOptions(
            try CommandLineParser.parse(["--to", "http://127.0.0.1:1/u", "--token-command", "echo t", "f"], for: spec))
        #expect((command.tokens as? CommandToken)?.arguments == ["sh", "-c", "echo t"])
        let folder = try TLSFixtures.TemporaryDirectory()
        let profile = try folder.write(#"{"interop": [3, 5], "auth": {"token": "fixed"}}"#, to: "p.json")
        let profiled = try UploadOptions(
            try CommandLineParser.parse(["--to", "http://127.0.0.1:1/u", "--server-profile", profile, "f"], for: spec))
        #expect(profiled.system.transfer.interopVersion?.rawValue == 5)
        #expect((profiled.tokens as? StaticToken)?.value == "fixed")
        let overridden = try UploadOptions(
            try CommandLineParser.parse(
                ["--to", "http://127.0.0.1:1/u", "--server-profile", profile, "--interop", "3", "--token", "t", "f"],
                for: spec))
        #expect(overridden.system.transfer.interopVersion?.rawValue == 3)
        #expect((overridden.tokens as? StaticToken)?.value == "t")
    }

    /// The client says when the server's answers depart from the draft, once per rule: an interop 6 server
    /// answering with interop 3's completion field (as a real one did), against one that answers right.
    @Test(arguments: [("Upload-Incomplete", "?0", true), ("Upload-Complete", "?1", false)])
    func aServerDeviationIsSaidOnce(field: String, value: String, deviates: Bool) throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let file = folder.file("photo.bin")
        _ = try Self.write(2000, seed: 4, to: file)
        let server = try ScriptedServer { url in
            [
                ScriptedStep(respond: 200, fields: ["Upload-Limit": "min-size=0"]),
                ScriptedStep(
                    interims: [ScriptedStep.interim104(version: 6, location: url + "/upload/1")],
                    respond: 201,
                    fields: HTTPFields([
                        HTTPField(name: "Upload-Offset", value: "2000"), HTTPField(name: field, value: value),
                    ])),
            ]
        }
        defer { server.stop() }
        let (status, _, err) = squall(["upload", "--to", server.url + "/upload", "--interop", "6", file])
        #expect(status == 0, "\(err)")
        let said = err.components(separatedBy: "squall upload: the server deviates from the draft: ").count - 1
        #expect(said == (deviates ? 1 : 0), "\(err)")
        if deviates {
            #expect(err.contains("POST /upload → 201: completion-field: Upload-Incomplete: ?0"), "\(err)")
        }
    }

    @Test func transferAndPolicyFlagsReachTheConfiguration() throws {
        let spec = UploadCommand.spec
        let flags = [
            "--to", "http://127.0.0.1:1/upload", "--resume-attempts", "2", "--backoff", "50ms", "--backoff-limit",
            "500ms", "--connect-timeout", "3s", "--read-timeout", "250ms", "--permanent-errors",
            "timedOut,badServerResponse", "--no-refresh-auth", "f",
        ]
        let options = try UploadOptions(try CommandLineParser.parse(flags, for: spec))
        let transfer = options.system.transfer
        #expect(transfer.maximumResumeAttempts == 2 && transfer.backoffBase == .milliseconds(50))
        #expect(transfer.backoffLimit == .milliseconds(500) && transfer.connectTimeout == .seconds(3))
        #expect(transfer.readTimeout == .milliseconds(250))
        #expect(options.policy.permanentErrors == [.timedOut, .badServerResponse])
        #expect(!options.policy.refreshAuthentication)
        let plain = try UploadOptions(
            try CommandLineParser.parse(["--to", "http://127.0.0.1:1/u", "--permanent-errors", "none", "f"], for: spec))
        #expect(plain.policy.permanentErrors.isEmpty && plain.policy.refreshAuthentication)
        #expect(plain.system.transfer.readTimeout == .seconds(60))
    }

    @Test func aFolderIsUploadedFileByFileWithASummary() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let server = try UploadServer(configuration: UploadServerConfiguration(storeDirectory: folder.file("store")))
        defer { server.stop() }
        try FileManager.default.createDirectory(atPath: folder.file("files/sub"), withIntermediateDirectories: true)
        var digests: Set<String> = []
        for (index, name) in ["files/a.bin", "files/b.bin", "files/sub/c.bin"].enumerated() {
            digests.insert(try Self.write(100_000 * (index + 1), seed: UInt64(index), to: folder.file(name)))
        }

        let (status, out, err) = squall([
            "upload", "--to", server.url + "/upload", "--inflight-limit", "2", "--append-size", "64KiB",
            "--journal", folder.file("journal"), folder.file("files"),
        ])

        #expect(status == 0, "\(err)")
        #expect(out.contains("upload: 3 of 3 files uploaded"))
        #expect(out.contains("sending a.bin (100000 bytes)"))
        #expect(out.components(separatedBy: "\n").filter { $0.hasPrefix("uploaded") }.count == 3)
        let records = server.uploads()
        #expect(records.count == 3)
        #expect(Set(records.compactMap(\.sha256)) == digests)

        let (again, rerun, _) = squall([
            "upload", "--to", server.url + "/upload", "--journal", folder.file("journal"), folder.file("files"),
        ])
        #expect(again == 0)
        #expect(!rerun.contains("sending"))
        #expect(server.uploads().count == 3)
    }

    /// A file that is not a PEM certificate is refused when the command starts, not at the first connection; a
    /// certificate that does not verify says so and what to do, not just `badServerResponse`.
    @Test func tlsTrustMistakesSayWhatToDo() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        _ = try Self.write(1_000, seed: 2, to: folder.file("a.bin"))
        let (status, _, err) = squall(
            ["upload", "--to", "https://127.0.0.1:1/upload", "--ca", folder.file("a.bin"), folder.file("a.bin")])
        #expect(status == 2)
        #expect(err.contains("not a PEM certificate"), "\(err)")
        let authority = try CertificateAuthority.loadOrCreate(directory: folder.file("ca"))
        var configuration = UploadServerConfiguration(storeDirectory: folder.file("store"))
        configuration.certificateAuthorityDirectory = authority.directory
        let server = try UploadServer(configuration: configuration)
        defer { server.stop() }
        let (failed, _, why) = squall(
            ["upload", "--to", server.url + "/upload", "--retry-limit", "0", folder.file("a.bin")])
        #expect(failed == 1)
        #expect(why.contains("certificate verification failed"), "\(why)")
        #expect(why.contains("trust the server's CA with --ca FILE"), "\(why)")
        let (trusted, _, _) = squall(
            ["upload", "--to", server.url + "/upload", "--ca", authority.certificatePath, folder.file("a.bin")])
        #expect(trusted == 0)
    }

    @Test func aServerThatRefusesEveryUploadFailsTheRun() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let server = try UploadServer(
            configuration: UploadServerConfiguration(
                storeDirectory: folder.file("store"),
                uploadProtocol: .init(limits: .init(maxSize: 10))))
        defer { server.stop() }
        _ = try Self.write(1_000, seed: 1, to: folder.file("a.bin"))
        let (status, out, _) = squall(["upload", "--to", server.url + "/upload", folder.file("a.bin")])
        #expect(status == 1)
        #expect(out.contains("a.bin  badServerResponse"))
        #expect(out.contains("a.bin: failed (badServerResponse, status 413)"))
        #expect(out.contains("upload: 0 of 1 files uploaded"))
    }

    /// The spawned client is killed (SIGKILL) or interrupted (SIGINT: it stops cleanly, exit status 130, and says
    /// it kept the journal) mid-upload, then run again with the same journal: it resumes the upload it left in
    /// flight, and the server ends with one complete, byte-exact upload.
    @Test(arguments: [SIGKILL, SIGINT])
    func aClientStoppedMidUploadResumesWithoutADuplicate(signal: Int32) throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let server = try UploadServer(configuration: UploadServerConfiguration(storeDirectory: folder.file("store")))
        defer { server.stop() }
        let digest = try Self.write(64 << 20, seed: 9, to: folder.file("big.bin"))
        let arguments = [
            "upload", "--to", server.url + "/upload", "--journal", folder.file("journal"), folder.file("big.bin"),
        ]

        let first = Process()
        first.executableURL = URL(fileURLWithPath: SquallBinaryTests.binary)
        first.arguments = arguments
        let output = Pipe()
        first.standardOutput = output
        let errors = Pipe()
        first.standardError = errors
        try first.run()
        while try !ServerProcess.nextLine(of: output.fileHandleForReading.fileDescriptor).hasSuffix("25%") {}
        kill(first.processIdentifier, signal)
        _ = output.fileHandleForReading.readDataToEndOfFile()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        first.waitUntilExit()
        if signal == SIGKILL {
            #expect(first.terminationReason == .uncaughtSignal)
        } else {
            #expect(first.terminationReason == .exit && first.terminationStatus == 130)
            #expect(
                said.hasSuffix(
                    "squall upload: SIGINT: stopped the upload of 1 file (0 uploaded); kept the journal "
                        + "\(folder.file("journal")) (the same command continues)\n"), "\(said)")
        }
        #expect(server.waitUntilIdle(timeout: .seconds(10)))
        #expect(server.uploads().count == 1)
        #expect(server.uploads().first?.complete == false)

        let second = Process()
        second.executableURL = URL(fileURLWithPath: SquallBinaryTests.binary)
        second.arguments = arguments
        let rest = Pipe()
        second.standardOutput = rest
        try second.run()
        let text = String(decoding: rest.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        second.waitUntilExit()
        #expect(second.terminationStatus == 0, "\(text)")
        #expect(text.contains("resuming big.bin"))
        let records = server.uploads()
        #expect(records.count == 1)
        #expect(records.first?.complete == true)
        #expect(records.first?.sha256 == digest)
    }
}
