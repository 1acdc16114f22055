import Foundation
import Glibc
import TestSupport
import Testing

/// An outside client we did not write: Go's net/http, through `Tests/Interop/go-upload` (a 16 MiB interop-6
/// creation; exit 0 on a 2xx final response; on stderr the count of informational responses the server sent before
/// the final one, read off the connection), against the built `squall server`.
///
/// Go before 1.24 accepts at most five informational responses per request and then fails it ("net/http: too many
/// 1xx informational responses"). Debian 12's Go 1.19 (`golang-go`, installed by Tools/setup.sh; a missing `go` is
/// a failure naming the package, as for tshark) has that limit, so the server's default progress policy must keep
/// within it, and the old policy (a 104 every 64 KiB, no limit, no spacing) must break it: the negative control.
@Suite(.serialized)
struct GoClientInteropTests {
    static let go = ExternalTool(path: "/usr/bin/go", package: "golang-go")
    /// `Tests/Interop`, where the Go programs are (`go-upload`, `go-resume`).
    static let interop = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Interop").path
    /// How long one upload may take in all; go-upload's own request limit is 60 s.
    static let patience: Duration = .seconds(90)

    /// Whether the Go on this machine has the five-informational-responses limit (before 1.24); true when it cannot
    /// tell, so that the tests run and say what is missing.
    static let goHasTheFiveResponseLimit: Bool = {
        guard let outcome = try? go.execute(["env", "GOVERSION"]), outcome.status == 0 else { return true }
        let parts = outcome.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines).dropFirst("go".count)
            .split(separator: ".").compactMap { Int($0.prefix { $0.isNumber }) }
        guard parts.count >= 2 else { return true }
        return (parts[0], parts[1]) < (1, 24)
    }()

    /// Builds `program` (a folder of `Tests/Interop`) into `folder` offline, with its build cache and GOPATH there
    /// too; returns the binary.
    static func build(into folder: TLSFixtures.TemporaryDirectory, program: String = "go-upload") throws
        -> ExternalTool
    {
        let source = interop + "/" + program
        let binary = folder.file(program)
        let environment = [
            "GOCACHE": folder.file("go-cache"), "GOPATH": folder.file("go-path"), "GOPROXY": "off",
            "GOFLAGS": "", "GO111MODULE": "on", "GOTOOLCHAIN": "local",
        ]
        let outcome = try go.execute(["build", "-o", binary, "."], in: source, environment: environment)
        guard outcome.status == 0 else {
            throw TLSFixtures.Failure("go build in \(source) failed: \(outcome.standardError)")
        }
        return ExternalTool(path: binary, package: "golang-go")
    }

    /// The informational responses go-upload counted, from its stderr.
    static func informational(_ outcome: ExternalTool.Outcome) -> Int? {
        let line = outcome.standardError.split(separator: "\n").first { $0.hasSuffix(" informational responses") }
        return line.flatMap { Int($0.dropFirst("go-upload: ".count).prefix { $0.isNumber }) }
    }

    /// Starts `squall server` with `progressInterval` (nil: the server's default progress policy; see
    /// `ServerProcess`) and `arguments`, and runs go-upload with `options` against it.
    static func upload(
        progressInterval: String?, arguments: [String] = [], options: [String] = []
    ) throws -> ExternalTool.Outcome {
        let folder = try TLSFixtures.TemporaryDirectory()
        let client = try build(into: folder)
        let server = try ServerProcess(
            store: folder.file("store"), progressInterval: progressInterval, arguments: arguments)
        defer { server.stop(with: SIGTERM) }
        return try client.execute(options + [server.url + "/upload"], limit: patience)
    }

    /// With the server's defaults, Go uploads 16 MiB, with and without `Expect: 100-continue`.
    @Test(arguments: [[], ["-expect-continue"]])
    func goUploads16MiBWithTheDefaults(options: [String]) throws {
        let outcome = try Self.upload(progressInterval: nil, options: options)
        #expect(outcome.status == 0, "go-upload: \(outcome.standardError)")
        #expect(outcome.standardOutput.hasPrefix("HTTP/1.1 201"), "\(outcome.standardOutput)")
        #expect((1...5).contains(Self.informational(outcome) ?? 0), "\(outcome.standardError)")
    }

    /// The limit alone (no spacing, so every progress 104 a fast loopback upload earns is sent): the 104 with
    /// `Location`, the `100 Continue` Go asks for and three progress 104s make five, which Go still accepts.
    @Test func goUploadsWithTheLimitAloneAndA100Continue() throws {
        let outcome = try Self.upload(
            progressInterval: nil, arguments: ["--progress-spacing", "0s"], options: ["-expect-continue"])
        #expect(outcome.status == 0, "go-upload: \(outcome.standardError)")
        #expect(Self.informational(outcome) == 5, "\(outcome.standardError)")
    }

    /// The negative control: the old policy (a progress 104 every 64 KiB, no limit, no spacing) makes Go give up
    /// at the sixth informational response. Go 1.19 names the limit, or, when its own close of the connection
    /// reaches the body's write first (as it mostly does while 16 MiB are being sent), reports that write on the
    /// closed connection instead; the count says it was the sixth informational response either way.
    @Test(.enabled(if: goHasTheFiveResponseLimit, "Go 1.24 and later have no five-1xx limit to break"))
    func goFailsWithTheOldPolicy() throws {
        let outcome = try Self.upload(progressInterval: "64KiB")
        #expect(outcome.status == 1)
        #expect((Self.informational(outcome) ?? 0) >= 6, "\(outcome.standardError)")
        let named = outcome.standardError.contains("too many 1xx informational responses")
        let closedByGo = outcome.standardError.contains("use of closed network connection")
        #expect(named || closedByGo, "go-upload: \(outcome.standardError)")
    }
}
