import Foundation
import Glibc
import SquallNet
import Synchronization
import TestSupport
import Testing
import UploadClient
import UploadJobs

/// Job retries wait (issue 13 item 7): the system starts retry n of a job after the transfer's backoff before
/// attempt n, in developer mode too (shortened, not removed), so a job whose server is down cannot spend its
/// retries back to back.
struct UploadSystemRetryBackoffTests {
    /// A loopback port that refuses connections: a socket bound to it but not listening keeps it ours.
    final class RefusingPort {
        let socket: Socket
        let url: String

        init() throws {
            let socket = try Socket.tcp(family: AF_INET)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let status = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(socket.fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            try #require(status == 0)
            self.socket = socket
            url = "http://\(try socket.localAddress())"
        }

        deinit {
            socket.close()
        }
    }

    /// A system with the default policy uploading `file` to `url`, retry limit 3, the given mode and backoff base;
    /// every wait is recorded (and returns at once) unless `sleeper` is nil.
    static func system(
        _ fixture: TransferFixture, file: String, url: String, developerMode: Bool, backoff: Duration,
        sleeper: UploadTransfer.Sleeper?, observer: @escaping @Sendable (UploadSystemEvent) -> Void = { _ in }
    ) throws -> UploadSystem {
        let policy = try DefaultUploadPolicy(
            assets: [file], destination: UploadDestinationTemplate(url: url + "/upload", tokens: nil),
            statePath: fixture.folder.file("journal.extension.json"))
        let transfer = TransferConfiguration(backoffBase: backoff, connectTimeout: .seconds(5))
        let configuration = UploadSystemConfiguration(
            jobs: JobStoreConfiguration(retryLimit: 3), transfer: transfer, developerMode: developerMode)
        return try UploadSystem(
            journalFolder: fixture.folder.file("journal"), configuration: configuration, extension: policy,
            sleeper: sleeper, observer: observer)
    }

    @Test(arguments: [
        (true, Duration.milliseconds(50), [50, 100, 200].map { Duration.milliseconds($0) }),
        (true, .seconds(1), [1, 1, 1].map { Duration.seconds($0) }),
        (false, .seconds(1), [1, 2, 4].map { Duration.seconds($0) }),
    ])
    func eachRetryOfARefusedJobWaitsFirst(developerMode: Bool, backoff: Duration, waits: [Duration]) throws {
        let fixture = try TransferFixture()
        let (path, _) = try fixture.file(10_000)
        let port = try RefusingPort()
        let delays = fixture.delays
        let system = try Self.system(
            fixture, file: path, url: port.url, developerMode: developerMode, backoff: backoff,
            sleeper: { delays.record($0) })
        defer { system.close() }

        #expect(try system.run().lastResult == .completed)

        #expect(fixture.delays.all == waits)
        let history = try #require(system.ledger.all.first)
        #expect(history.attempts == 4 && history.retries == 3)
        #expect(history.errors == Array(repeating: .cannotConnectToHost, count: 4))
    }

    /// The negative control for the waits as a user meets them: with the system's own sleeper, four refused
    /// attempts take at least the three waits (50 + 100 + 200 ms), never the few milliseconds of back to back ones.
    @Test func fourRefusedAttemptsTakeAtLeastTheirWaits() throws {
        let fixture = try TransferFixture()
        let (path, _) = try fixture.file(10_000)
        let port = try RefusingPort()
        let system = try Self.system(
            fixture, file: path, url: port.url, developerMode: true, backoff: .milliseconds(50), sleeper: nil)
        defer { system.close() }

        let started = ContinuousClock.now
        _ = try system.run()
        #expect(ContinuousClock.now - started >= .milliseconds(350))
        #expect(system.ledger.all.first?.attempts == 4)
    }

    /// A termination during a retry's wait ends the run without waiting the rest of it (30 s), and the job stays
    /// held for the next run.
    @Test func aTerminationCutsARetrysWaitShort() throws {
        let fixture = try TransferFixture()
        let (path, _) = try fixture.file(10_000)
        let port = try RefusingPort()
        let retried = DispatchSemaphore(value: 0)
        let starts = StartCounter()
        let system = try Self.system(
            fixture, file: path, url: port.url, developerMode: false, backoff: .seconds(30), sleeper: nil,
            observer: { event in
                if case .transferStarted = event, starts.next() == 2 { retried.signal() }
            })
        defer { system.close() }
        Thread {
            _ = retried.wait(timeout: .now() + 10)
            system.terminate()
        }.start()

        let started = ContinuousClock.now
        let summary = try system.run()

        #expect(ContinuousClock.now - started < .seconds(10))
        #expect(summary.stoppedEarly == "terminated")
        #expect(system.store.jobs.count == 1)
        #expect(system.ledger.all.first?.attempts == 2)
    }

    /// Counts transfer starts from the system's threads.
    final class StartCounter: Sendable {
        private let count = Atomic<Int>(0)

        /// The number of this start, from 1.
        func next() -> Int {
            count.wrappingAdd(1, ordering: .sequentiallyConsistent).newValue
        }
    }
}
