import Foundation
import Glibc
import SquallNet
import TestSupport
import Testing

/// The issue 13 item 7 campaign with real processes: `squall upload --journal … --resume-attempts 20 --backoff
/// 50ms` straight to `squall server`. The server killed with SIGKILL mid-upload and restarted on its port from its
/// store after a moment gets the whole file, since refused resumes wait and try again; the client killed instead
/// and relaunched from its journal finishes the same upload. Kills are triggered by the client's progress lines.
struct UploadRestartTests {
    /// The file: 32 MiB, enough to be mid-transfer at the 25 % and 50 % lines.
    static let size = 32 << 20

    /// `squall upload` of `file` to `server` with the campaign's flags, its stdout piped.
    static func startClient(_ file: String, to server: ServerProcess, journal: String) throws -> (Process, Pipe) {
        let client = Process()
        client.executableURL = URL(fileURLWithPath: SquallBinaryTests.binary)
        client.arguments = [
            "upload", "--to", server.url + "/upload", "--journal", journal, "--resume-attempts", "20", "--backoff",
            "50ms", file,
        ]
        let output = Pipe()
        client.standardOutput = output
        client.standardError = FileHandle.nullDevice
        client.standardInput = FileHandle.nullDevice
        try client.run()
        return (client, output)
    }

    /// Keeps the killed server's port down until the client has tried it: a stand-in resets the client's first
    /// connection there, as a server that is gone. That connection is the readiness signal: the client's resume
    /// failed and it waits to try again.
    static func awaitRefusedResume(at authority: String) throws {
        let listener = try TCPListener(authority)
        let tried = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            if let socket = try? listener.accept() { socket.abort() }
            tried.signal()
        }
        let came = tried.wait(timeout: .now() + 20) == .success
        listener.close()
        if !came { _ = tried.wait(timeout: .now() + 5) }
        #expect(came, "the client never tried to resume while the server was down")
    }

    /// Reads the client's lines until one ends with `suffix` (e.g. `25%`).
    static func awaitLine(endingWith suffix: String, of output: Pipe) throws {
        while try !ServerProcess.nextLine(of: output.fileHandleForReading.fileDescriptor).hasSuffix(suffix) {}
    }

    /// The rest of the client's output once it has exited.
    static func finish(_ client: Process, _ output: Pipe) -> String {
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        client.waitUntilExit()
        return text
    }

    /// The server's store as `GET /_squall/uploads` lists it.
    static func uploads(on server: ServerProcess) throws -> [ServerProcessTests.ListedUpload] {
        let listing = try RawHTTPConnection(server.authority).request("GET", "/_squall/uploads").final
        try #require(listing.status == 200)
        return try JSONDecoder().decode([ServerProcessTests.ListedUpload].self, from: Data(listing.body))
    }

    /// The offsets of the PATCHes the server's JSON Lines log records after its `starts`-th start event.
    static func appendOffsets(inLog path: String, afterStart starts: Int) throws -> [Int64] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var seen = 0
        var offsets: [Int64] = []
        for line in text.split(separator: "\n") {
            let record = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            if record["event"] as? String == "start" { seen += 1 }
            if seen >= starts, record["event"] as? String == "request", record["method"] as? String == "PATCH",
                let offset = record["offset"] as? Int
            {
                offsets.append(Int64(offset))
            }
        }
        return offsets
    }

    @Test(arguments: ["25%", "50%"])
    func aServerKilledMidUploadAndRestartedOnItsPortGetsTheWholeFile(killAt: String) throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let digest = try UploadCommandTests.write(Self.size, seed: 13, to: folder.file("a.bin"))
        let log = folder.file("server.jsonl")
        let first = try ServerProcess(
            store: folder.file("store"), progressInterval: "256KiB", arguments: ["--log", log])
        let (client, output) = try Self.startClient(folder.file("a.bin"), to: first, journal: folder.file("journal"))

        try Self.awaitLine(endingWith: killAt, of: output)
        let killed = first.stop(with: SIGKILL)
        #expect(killed.reason == .uncaughtSignal)
        try Self.awaitRefusedResume(at: first.authority)
        let second = try ServerProcess(
            store: folder.file("store"), listen: first.authority, progressInterval: "256KiB", arguments: ["--log", log])
        let text = Self.finish(client, output)

        #expect(client.terminationReason == .exit && client.terminationStatus == 0, "\(text)")
        #expect(text.contains("upload: 1 of 1 files uploaded"), "\(text)")
        let uploads = try Self.uploads(on: second)
        #expect(uploads.count == 1)
        #expect(uploads.first?.complete == true && uploads.first?.offset == Int64(Self.size))
        #expect(uploads.first?.sha256 == digest)
        // The restarted server got the rest only: the kill landed mid-transfer, and the client resumed.
        let resumedAt = try Self.appendOffsets(inLog: log, afterStart: 2)
        #expect(!resumedAt.isEmpty && resumedAt.allSatisfy { $0 > 0 && $0 < Int64(Self.size) }, "\(resumedAt)")
        #expect(second.stop(with: SIGTERM).status == 143)
    }

    @Test(arguments: ["25%", "50%"])
    func aClientKilledMidUploadAndRelaunchedFromItsJournalFinishes(killAt: String) throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let digest = try UploadCommandTests.write(Self.size, seed: 14, to: folder.file("a.bin"))
        let server = try ServerProcess(store: folder.file("store"), progressInterval: "256KiB")
        let journal = folder.file("journal")
        let (first, output) = try Self.startClient(folder.file("a.bin"), to: server, journal: journal)

        try Self.awaitLine(endingWith: killAt, of: output)
        kill(first.processIdentifier, SIGKILL)
        _ = Self.finish(first, output)
        #expect(first.terminationReason == .uncaughtSignal)
        #expect(try Self.uploads(on: server).map(\.complete) == [false])

        let (second, rest) = try Self.startClient(folder.file("a.bin"), to: server, journal: journal)
        let text = Self.finish(second, rest)

        #expect(second.terminationReason == .exit && second.terminationStatus == 0, "\(text)")
        #expect(text.contains("resuming a.bin"), "\(text)")
        let uploads = try Self.uploads(on: server)
        #expect(uploads.count == 1)
        #expect(uploads.first?.complete == true && uploads.first?.sha256 == digest)
    }

    /// A server that stays down: the job's four attempts (retry limit 3) are spread over at least the three
    /// retry waits (50 + 100 + 200 ms from the first attempt on), not spent within a few milliseconds, and the run
    /// fails with exit 1.
    @Test func retriesWhileTheServerIsDownWaitBetweenAttempts() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        _ = try UploadCommandTests.write(1_000, seed: 15, to: folder.file("a.bin"))
        let gone = try ServerProcess(store: folder.file("store"))
        gone.stop(with: SIGKILL)
        let (client, output) = try Self.startClient(folder.file("a.bin"), to: gone, journal: folder.file("journal"))

        try Self.awaitLine(endingWith: "sending a.bin (1000 bytes)", of: output)
        let firstAttempt = ContinuousClock.now
        let text = Self.finish(client, output)

        // 350 ms of waits; the slack is for reading the line late, never the ~10 ms of attempts back to back.
        #expect(ContinuousClock.now - firstAttempt >= .milliseconds(300))
        #expect(client.terminationStatus == 1)
        #expect(text.components(separatedBy: "a.bin: failed (cannotConnectToHost)").count - 1 == 4, "\(text)")
    }
}
