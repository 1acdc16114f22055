import Foundation
import SquallCore
import TestSupport
import Testing

@testable import SquallCLI

/// `squall transcript to-har`: a transcript file in, an archive out; a line that is not an event names its number
/// and writes nothing.
struct TranscriptCommandTests {
    static let lines = [
        #"{"t_us":0,"conn":0,"event":"start","unix_us":1796601600000000}"#,
        #"{"t_us":1000,"conn":1,"event":"open","client":"127.0.0.1:5000","listener":"127.0.0.1:8443"}"#,
        #"{"t_us":2000,"conn":1,"event":"request","exchange":1,"method":"POST","target":"/upload","version":"HTTP/1.1","fields":[["Host","a"]]}"#,
        #"{"t_us":3000,"conn":1,"event":"interim","exchange":1,"version":"HTTP/1.1","status":104,"reason":"Upload Resumption Supported","fields":[["Location","/upload/1"]]}"#,
        #"{"t_us":9000,"conn":1,"event":"response","exchange":1,"version":"HTTP/1.1","status":201,"reason":"Created","fields":[]}"#,
        #"{"t_us":9500,"conn":1,"event":"close","side":"client","kind":"fin"}"#,
    ]

    func squall(_ arguments: String...) -> (Int32, String, String) {
        let console = Console.capturing()
        let status = SquallCommand.run(
            arguments: arguments, context: CommandContext(console: console, environment: [:]))
        return (status, console.standardOutput, console.standardError)
    }

    @Test func aTranscriptBecomesAnArchive() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let input = folder.file("t.jsonl")
        try (Self.lines.joined(separator: "\n") + "\n").write(toFile: input, atomically: false, encoding: .utf8)
        let (status, out, err) = squall("transcript", "to-har", input)
        #expect(status == 0, "\(err)")
        let log = try JSONValue.parse(out)["log"]
        #expect(log?.value(atPath: "entries[0].startedDateTime") == .string("2026-12-07T00:00:00.002Z"))
        #expect(log?.value(atPath: "entries[0].response.status") == .integer(201))
        #expect(log?.value(atPath: "entries[0]._interimResponses[0].headers[0].value") == .string("/upload/1"))

        let output = folder.file("t.har")
        let (written, _, said) = squall("transcript", "to-har", input, "--out", output)
        #expect(written == 0)
        #expect(said == "squall transcript to-har: 1 entries written to \(output)\n")
        #expect(try String(contentsOfFile: output, encoding: .utf8) == out)
        let mode = try FileManager.default.attributesOfItem(atPath: output)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func aLineThatIsNotAnEventIsNamedAndNothingIsWritten() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let input = folder.file("t.jsonl")
        let broken = Self.lines.prefix(2) + [#"{"t_us":5,"conn":1,"event":"teleport"}"#] + Self.lines.dropFirst(2)
        try broken.joined(separator: "\n").write(toFile: input, atomically: false, encoding: .utf8)
        let output = folder.file("t.har")
        let (status, out, err) = squall("transcript", "to-har", input, "--out", output)
        #expect(status == 1)
        #expect(out.isEmpty)
        #expect(err.contains("\(input) line 3: "), "\(err)")
        #expect(err.contains("'teleport' is not an event kind"), "\(err)")
        #expect(!FileManager.default.fileExists(atPath: output))

        let (missing, _, why) = squall("transcript", "to-har", folder.file("absent.jsonl"))
        #expect(missing == 1)
        #expect(why.contains("absent.jsonl: No such file or directory"), "\(why)")
        let (usage, _, _) = squall("transcript", "to-har")
        #expect(usage == 2)
    }
}
