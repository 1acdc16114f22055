import Foundation
import Glibc
import ServerCheck
import SquallNet
import TestSupport
import Testing

/// Hard stops, with real signals to the built binary: SIGINT and SIGTERM stop each long-running command, what it
/// started, and remove what it made in its own `TMPDIR` (an empty folder afterwards); one line on stderr says what
/// was stopped, removed and kept; the status is 130 or 143; a second signal exits at once. Every wait is on a
/// readiness signal: a stdout line, a request reaching a server the test holds, a process's pidfd.
@Suite struct StopSignalTests {
    static let signals: [Int32] = [SIGINT, SIGTERM]

    static func name(_ signal: Int32) -> String { signal == SIGINT ? "SIGINT" : "SIGTERM" }

    /// How long a command may take to end after the signal: far less than what it would have gone on for (the
    /// scenario's 60 s, the case's 60 s), far more than it takes (a fraction of a second).
    static let promptly: Duration = .seconds(20)

    /// A server that takes connections and never answers: each first read of a connection is posted to `requests`
    /// (the proof that the client got that far), then the connection is held until the peer closes it (at most
    /// 2 minutes, past any command's own timeout in these tests).
    final class HoldingServer {
        let requests = Mailbox<String>()
        let loop: AcceptLoop

        init() throws {
            let requests = self.requests
            loop = try LoopbackServer.start { socket in
                let stream = PlainStream(socket: socket)
                let deadline = ContinuousClock.now + .seconds(120)
                let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 16 * 1024, alignment: 8)
                defer {
                    chunk.deallocate()
                    stream.close()
                }
                var first = true
                while let count = try? stream.readSome(into: chunk, deadline: deadline), count > 0 {
                    if first {
                        requests.put(String(decoding: UnsafeRawBufferPointer(rebasing: chunk[..<count]), as: UTF8.self))
                    }
                    first = false
                }
            }
        }

        deinit { loop.stop() }

        var url: String { "http://\(loop.address)" }
    }

    @Test(arguments: signals)
    func aServerWithoutAStoreRemovesItsTemporaryStore(signal: Int32) throws {
        let server = try SquallProcess(["server", "--listen", "127.0.0.1:0"])
        let url = try server.nextLine()
        let store = try server.nextLine()
        #expect(store.hasPrefix(server.temporary.path + "/squall-store-"))
        #expect(server.leftovers.count == 1)
        server.send(signal)
        let ended = server.waitForExit()
        #expect(ended.exited && ended.status == 128 + signal)
        #expect(
            ended.errors
                == "squall server: \(Self.name(signal)): stopped the server at \(url); removed \(store) (temporary store)\n"
        )
        #expect(server.leftovers.isEmpty)
    }

    /// A `--store` folder and a `--log` file are the user's: kept, and the line says so.
    @Test func aServerKeepsTheStoreItWasGiven() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let server = try SquallProcess([
            "server", "--listen", "127.0.0.1:0", "--store", folder.file("store"), "--log", folder.file("log"),
        ])
        let url = try server.nextLine()
        #expect(try server.nextLine() == folder.file("store"))
        server.send(SIGTERM)
        let ended = server.waitForExit()
        #expect(ended.exited && ended.status == 143)
        #expect(
            ended.errors
                == "squall server: SIGTERM: stopped the server at \(url); kept the store \(folder.file("store")), "
                + "the log \(folder.file("log"))\n")
        #expect(FileManager.default.fileExists(atPath: folder.file("store")))
        #expect(server.leftovers.isEmpty)
    }

    /// A server that cannot listen (the port is taken) exits 1 and leaves no temporary store behind.
    @Test func aServerThatFailsToStartRemovesItsTemporaryStore() throws {
        let taken = try TCPListener(address: SocketAddress(parsing: "127.0.0.1:0"))
        defer { taken.close() }
        let server = try SquallProcess(["server", "--listen", taken.address.description])
        let ended = server.waitForExit()
        #expect(ended.exited && ended.status == 1)
        #expect(ended.errors.hasPrefix("squall server: error: "), "\(ended.errors)")
        #expect(server.leftovers.isEmpty)
    }

    @Test func theProxyStopsAndKeepsItsTranscript() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let upstream = try HoldingServer()
        let proxy = try SquallProcess([
            "proxy", "--plain", "--upstream", upstream.url, "--transcript", folder.file("t.jsonl"),
        ])
        let url = try proxy.nextLine()
        proxy.send(SIGINT)
        let ended = proxy.waitForExit()
        #expect(ended.exited && ended.status == 130)
        #expect(
            ended.errors
                == "squall proxy: SIGINT: stopped the proxy at \(url); kept --transcript \(folder.file("t.jsonl"))\n")
        #expect(FileManager.default.fileExists(atPath: folder.file("t.jsonl")))
        #expect(proxy.leftovers.isEmpty)
    }

    /// `squall upload` without `--journal`: the temporary journal goes with the stop.
    @Test(arguments: signals)
    func anUploadWithoutAJournalRemovesItsTemporaryJournal(signal: Int32) throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let upstream = try HoldingServer()
        let file = try folder.write("squall", to: "photo.bin")
        let upload = try SquallProcess(["upload", "--to", upstream.url + "/upload", "--interop", "none", file])
        // The creation reached the server: the journal exists and the job is in flight.
        #expect(upstream.requests.take() != nil)
        #expect(upload.leftovers.count == 1)
        let journal = upload.temporary.file(upload.leftovers.first ?? "")
        let started = ContinuousClock.now
        upload.send(signal)
        let ended = upload.waitForExit()
        #expect(ContinuousClock.now - started < Self.promptly)
        #expect(ended.exited && ended.status == 128 + signal)
        #expect(
            ended.errors.hasSuffix(
                "squall upload: \(Self.name(signal)): stopped the upload of 1 file (0 uploaded); removed \(journal) "
                    + "(temporary journal)\n"), "\(ended.errors)")
        #expect(upload.leftovers.isEmpty)
    }

    /// `squall check-server` against a server that never answers: the case under way is cut short at once (not
    /// after its 60 s), and the reports hold the one case that finished (the skipped OPTIONS case at interop 3).
    @Test func theServerCheckStopsMidCaseAndWritesWhatFinished() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let upstream = try HoldingServer()
        let check = try SquallProcess([
            "check-server", upstream.url + "/upload", "--interop", "3", "--timeout", "60s", "--json",
            folder.file("r.json"), "--junit", folder.file("r.xml"),
        ])
        #expect(upstream.requests.take() != nil)
        let started = ContinuousClock.now
        check.send(SIGINT)
        let ended = check.waitForExit()
        #expect(ContinuousClock.now - started < Self.promptly)
        #expect(ended.exited && ended.status == 130)
        #expect(
            ended.errors
                == "squall check-server: SIGINT: stopped the check after 1 of \(ServerCheck.cases.count) cases; kept --json "
                + "\(folder.file("r.json")) (the finished cases), --junit \(folder.file("r.xml")) (the finished cases)\n"
        )
        let report = try JSONSerialization.jsonObject(
            with: Data(contentsOf: URL(fileURLWithPath: folder.file("r.json"))))
        #expect(((report as? [String: Any])?["summary"] as? [String: Any])?["cases"] as? Int == 1)
        #expect(check.leftovers.isEmpty)
    }

    /// A scenario against a server the test holds, whose client runs as a child `squall upload` (its kill-client
    /// event is far off): once the client's first request reaches the server, the run is mid-scenario.
    static func startHeldRun(_ upstream: HoldingServer, extra: [String] = []) throws -> (SquallProcess, Int32) {
        let folder = try TLSFixtures.TemporaryDirectory()
        let scenario = try folder.write(
            """
            {"name": "held", "description": "d", "timeout": "60s",
             "server": {"upstream": {"url": "\(upstream.url)/upload", "interop": [8]}},
             "assets": [{"name": "photo", "size": "64KiB"}],
             "events": [{"event": "kill-client", "at": "50s"}],
             "expect": {"jobs": {"succeeded": "all"}}}
            """, to: "held.json")
        let run = try SquallProcess(["run", scenario] + extra)
        _ = try #require(upstream.requests.take())
        let children = ProcessWatch.children(of: run.pid).filter { $0.arguments.dropFirst().first == "upload" }
        let child = try #require(children.first, "the run's child client")
        return (run, child.pid)
    }

    @Test(arguments: signals)
    func aRunStopsItsChildrenAndRemovesTheScenarioFolder(signal: Int32) throws {
        let upstream = try HoldingServer()
        let folder = try TLSFixtures.TemporaryDirectory()
        let (run, child) = try Self.startHeldRun(upstream, extra: ["--json", folder.file("r.json")])
        let scenarioFolder = try #require(run.leftovers.first)
        let started = ContinuousClock.now
        run.send(signal)
        let ended = run.waitForExit()
        #expect(ContinuousClock.now - started < Self.promptly)
        #expect(ended.exited && ended.status == 128 + signal)
        #expect(
            ended.errors
                == "squall run: \(Self.name(signal)): stopped scenario held, child squall upload pid \(child); "
                + "removed \(run.temporary.file(scenarioFolder)) (scenario held's CA key, journal and assets); kept "
                + "the partial report \(folder.file("r.json")) (0 of 1 scenarios)\n")
        #expect(run.leftovers.isEmpty)
        #expect(ProcessWatch.waitForEnd(of: child, timeout: .seconds(1)))
        let report = try String(contentsOfFile: folder.file("r.json"), encoding: .utf8)
        #expect(report.contains(#""scenarios": []"#))
    }

    /// The first SIGINT's stop waits for a child client that cannot end (it is stopped with SIGSTOP); SIGTERM then
    /// ends the run at once: the child is killed, the scenario's folder is left and named.
    @Test func aSecondSignalExitsAtOnce() throws {
        let upstream = try HoldingServer()
        let (run, child) = try Self.startHeldRun(upstream)
        let scenarioFolder = run.temporary.file(try #require(run.leftovers.first))
        kill(child, SIGSTOP)
        let started = ContinuousClock.now
        run.send(SIGINT)
        run.send(SIGTERM)
        let ended = run.waitForExit()
        // At once: long before the 30 s the first stop would wait for the client.
        #expect(ContinuousClock.now - started < Self.promptly)
        #expect(ended.exited && ended.status == 143)
        #expect(
            ended.errors == "squall run: second signal (SIGTERM): exited at once; killed child squall upload pid "
                + "\(child); left \(scenarioFolder) (scenario held's CA key, journal and assets)\n")
        #expect(ProcessWatch.waitForEnd(of: child, timeout: .seconds(10)))
        #expect(FileManager.default.fileExists(atPath: scenarioFolder))
    }
}
