import Foundation
import ServerCheck
import TestSupport
import Testing
import UploadServer

@testable import SquallCLI

/// `squall check-server`: the table per version, the reports, the exit statuses, the usage mistakes.
struct CheckServerCommandTests {
    func squall(_ arguments: [String]) -> (Int32, String, String) {
        let console = Console.capturing()
        let status = SquallCommand.run(
            arguments: arguments, context: CommandContext(console: console, environment: [:]))
        return (status, console.standardOutput, console.standardError)
    }

    @Test func theReferenceServerPassesWithATablePerVersionAndBothReports() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        var configuration = UploadServerConfiguration(storeDirectory: folder.file("store"))
        configuration.uploadProtocol.limits.maxSize = 1 << 20
        let server = try UploadServer(configuration: configuration)
        defer { server.stop() }
        // The URL from the profile: no positional argument.
        let profile = try folder.write(
            #"{"url": "\#(server.url)/upload", "interop": [6, 8], "retention": "1d", "limits": {"max-size": "1MiB"}}"#,
            to: "profile.json")
        let (status, out, err) = squall([
            "check-server", "--profile", profile, "--json", folder.file("r.json"), "--junit", folder.file("r.xml"),
        ])
        #expect(status == 0, "\(out)\(err)")
        let lines = out.split(separator: "\n").map(String.init)
        let count = lines.count { $0.hasPrefix("  ") }
        #expect(lines.first == "interop 6" && lines.contains("interop 8"))
        #expect(lines.contains { $0.hasPrefix("  append-wrong-offset          PASS  409 (Upload-Offset: 32") })
        // The two cases of interop 9 on are skipped at 6 and 8, and the announced limits' case at 6.
        let passed = count - 5
        #expect(
            lines.last?.hasPrefix("\(count) cases at interop 6, 8: \(passed) passed, 0 failed, 5 skipped in ") == true)
        let json = try String(contentsOfFile: folder.file("r.json"), encoding: .utf8)
        #expect(json.contains(#""summary": {"cases": \#(count), "passed": \#(passed), "failed": 0, "skipped": 5"#))
        let junit = try String(contentsOfFile: folder.file("r.xml"), encoding: .utf8)
        #expect(junit.contains(#"<testsuite name="check-server interop 8" tests="\#(count / 2)" failures="0""#))
    }

    @Test func theListNamesEveryCaseWithItsVersions() {
        let (status, out, _) = squall(["check-server", "--list"])
        #expect(status == 0)
        let lines = out.split(separator: "\n")
        #expect(lines.count == ServerCheck.cases.count)
        #expect(lines.first?.hasPrefix("options                      6-10,final  OPTIONS on the creation URL") == true)
        #expect(
            lines.contains { $0.hasPrefix("append-wrong-offset          3-10,final  PATCH at a wrong offset gets 409") }
        )
        #expect(lines.contains { $0.hasPrefix("plain-without-version        3-10        a creation without") })
    }

    @Test func aFailingCaseExitsOne() throws {
        let server = try FlawedUploadServer(flaw: .rejectsUnknownVersions)
        defer { server.stop() }
        let (status, out, _) = squall(["check-server", server.creationURL, "--interop", "8", "--timeout", "5s"])
        #expect(status == 1)
        #expect(
            out.contains(
                "  plain-unknown-version        FAIL  expected POST to be answered 2xx (a plain upload, never a 4xx "
                    + "for the version); got 400"), "\(out)")
        #expect(out.contains(" 1 failed, "))
    }

    @Test(arguments: [
        ([], "the server's creation URL is missing"),
        (["ftp://127.0.0.1/upload"], "the URL must be an http or https URL, not 'ftp://127.0.0.1/upload'"),
        (
            ["http://127.0.0.1:1/upload", "--interop", "6,11"],
            "--interop must list interop versions from 3 to 10 or final"
        ),
        (["http://127.0.0.1:1/upload", "--timeout", "0s"], "--timeout must be above 0"),
        (["http://127.0.0.1:1/upload", "--timeout", "soon"], "--timeout must be a duration"),
        (
            ["http://127.0.0.1:1/upload", "--ca", "/nonexistent/ca.pem"],
            "--ca /nonexistent/ca.pem: no such readable file"
        ),
        (["http://127.0.0.1:1/upload", "--bogus"], "unknown option '--bogus'"),
    ])
    func usageMistakesExitTwo(arguments: [String], message: String) {
        let (status, out, err) = squall(["check-server"] + arguments)
        #expect(status == 2)
        #expect(out.isEmpty)
        #expect(err.hasPrefix("squall check-server: ") && err.contains(message), "\(err)")
    }

    @Test func profileErrorsArePrintedAsTheLoaderGivesThemAndExitTwo() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let profile = try folder.write(#"{"interop": [6], "retention": 5, "limts": {}}"#, to: "profile.json")
        let (status, out, err) = squall(["check-server", "http://127.0.0.1:1/upload", "--profile", profile])
        #expect(status == 2)
        #expect(out.isEmpty)
        let lines = err.split(separator: "\n")
        #expect(lines.count == 2, "\(err)")
        #expect(lines.allSatisfy { $0.hasPrefix("\(profile): ") })
        #expect(err.contains("limts") && err.contains("retention"))
        let (missing, _, missingErr) = squall(["check-server", "--profile", folder.file("none.json")])
        #expect(missing == 2)
        #expect(missingErr.contains("cannot read the file"))
    }
}
