import Foundation
import HTTPWire
import ResumableUpload
import Synchronization
import TestSupport
import Testing
import UploadClient
import UploadJobs
import UploadServer

/// The system half and the default extension policy together, against the reference server or a scripted one.
struct UploadSystemTests {
    /// Files of different sizes in the fixture's folder, with their SHA-256s.
    static func assets(_ fixture: TransferFixture, count: Int, size: Int = 40_000) throws -> [(String, String)] {
        try (0..<count).map { index in
            let (path, bytes) = try fixture.file(size + index * 1_000, seed: UInt64(index + 1), name: "asset-\(index)")
            return (path, TransferFixture.sha256(bytes))
        }
    }

    static func system(
        _ fixture: TransferFixture, assets: [String], url: String, tokens: (any TokenSource)? = nil,
        jobs: JobStoreConfiguration = JobStoreConfiguration(), journal: String = "journal",
        observer: @escaping @Sendable (UploadSystemEvent) -> Void = { _ in }
    ) throws -> (UploadSystem, DefaultUploadPolicy) {
        let policy = try DefaultUploadPolicy(
            assets: assets, destination: UploadDestinationTemplate(url: url + "/upload", tokens: tokens),
            statePath: fixture.folder.file(journal + ".extension.json"))
        let configuration = UploadSystemConfiguration(jobs: jobs, developerMode: true)
        let system = try UploadSystem(
            journalFolder: fixture.folder.file(journal), configuration: configuration, extension: policy,
            sleeper: { _ in }, observer: observer)
        return (system, policy)
    }

    /// How many times each job was acknowledged, from the ledger.
    static func acknowledgements(_ ledger: JobLedger) -> [Int] {
        ledger.all.map { history in
            history.entries.filter { if case .acknowledged = $0.event { true } else { false } }.count
        }
    }

    @Test func everyAssetIsUploadedOnceAndAcknowledgedOnce() throws {
        let fixture = try TransferFixture()
        let server = try fixture.server()
        defer { server.stop() }
        let files = try Self.assets(fixture, count: 7)
        let (system, policy) = try Self.system(
            fixture, assets: files.map(\.0), url: server.url,
            jobs: JobStoreConfiguration(inFlightLimit: 3, retryLimit: 2))
        defer { system.close() }

        let summary = try system.run()

        #expect(summary.lastResult == .completed)
        #expect(summary.stoppedEarly == nil)
        #expect(system.store.jobs.isEmpty)
        #expect(system.store.peakInFlight <= 3)
        #expect(system.ledger.all.count == 7)
        #expect(Self.acknowledgements(system.ledger).allSatisfy { $0 == 1 })
        let records = server.uploads()
        #expect(records.count == 7)
        #expect(Set(records.compactMap(\.sha256)) == Set(files.map(\.1)))
        #expect(records.allSatisfy { $0.complete })
        let outcomes = policy.outcomes
        #expect(outcomes.failed.isEmpty)
        #expect(Set(outcomes.uploaded.values) == Set(records.map(\.id)))
        for history in system.ledger.all {
            #expect(history.attempts == 1)
            #expect(history.serverResourceID == outcomes.uploaded[history.assetID])
            #expect(history.byteRanges.reduce(0) { $0 + $1.length } >= 40_000)
            #expect(history.uploadResource?.hasPrefix(server.url + "/upload/") == true)
        }
    }

    /// A server that always resets before answering: every attempt fails with a transient error, so the job runs
    /// exactly retry limit + 1 times, then is acknowledged as failed.
    @Test(arguments: [0, 2])
    func theRetryLimitBoundsAttempts(retryLimit: Int) throws {
        let fixture = try TransferFixture()
        let server = try ScriptedServer(steps: Array(repeating: ScriptedStep(bodyLimit: 10, ending: .reset), count: 20))
        defer { server.stop() }
        let files = try Self.assets(fixture, count: 1, size: 5_000)
        let (system, policy) = try Self.system(
            fixture, assets: files.map(\.0), url: server.url,
            jobs: JobStoreConfiguration(inFlightLimit: 2, retryLimit: retryLimit))
        defer { system.close() }

        let summary = try system.run()

        #expect(summary.lastResult == .completed)
        let history = try #require(system.ledger.all.first)
        #expect(history.attempts == retryLimit + 1)
        #expect(history.retries == retryLimit)
        #expect(Self.acknowledgements(system.ledger) == [1])
        #expect(policy.outcomes.failed[files[0].0] != nil)
        #expect(policy.outcomes.uploaded.isEmpty)
    }

    @Test func anExpiredTokenIsRefreshedAndTheJobRetriedWithTheNewOne() throws {
        let fixture = try TransferFixture()
        let server = try fixture.server {
            $0.authentication = AuthenticationConfiguration(tokenLifetime: 600)
        }
        defer { server.stop() }
        let tokens = TokenEndpoint(url: server.url + "/_squall/token?principal=alice")
        _ = try tokens.token(refresh: false)
        try server.expireTokens()
        let files = try Self.assets(fixture, count: 2)
        let (system, policy) = try Self.system(fixture, assets: files.map(\.0), url: server.url, tokens: tokens)
        defer { system.close() }

        let summary = try system.run()

        #expect(summary.lastResult == .completed)
        #expect(policy.outcomes.uploaded.count == 2)
        #expect(server.uploads().allSatisfy { $0.principal == "alice" && $0.complete })
        for history in system.ledger.all {
            #expect(history.attempts == 2)
            #expect(history.errors == [.userAuthenticationRequired])
            #expect(history.entries.contains { $0.event == .retried(number: 1, newDestination: true) })
        }
    }

    @Test func aServerWithoutResumableUploadsGetsPlainUploads() throws {
        let fixture = try TransferFixture()
        let server = try fixture.server(UploadProtocolConfiguration(resumable: false))
        defer { server.stop() }
        let files = try Self.assets(fixture, count: 3)
        let (system, policy) = try Self.system(fixture, assets: files.map(\.0), url: server.url)
        defer { system.close() }

        #expect(try system.run().lastResult == .completed)
        #expect(policy.outcomes.uploaded.count == 3)
        #expect(server.uploads().allSatisfy { $0.complete && $0.interopVersion == nil })
        #expect(system.ledger.all.allSatisfy { $0.uploadResource == nil })
    }

    /// Terminated mid-transfer, then relaunched on the same journal: the job left pending resumes from its
    /// upload resource (HEAD, then PATCH) and the server ends with exactly one upload per asset.
    @Test func aRelaunchResumesTheTransferLeftInFlight() throws {
        let fixture = try TransferFixture()
        let server = try fixture.server(
            UploadProtocolConfiguration(progressInterval: 256 * 1024, progressLimit: nil, progressSpacing: .zero))
        defer { server.stop() }
        let (path, bytes) = try fixture.file(16 << 20, seed: 42, name: "big.bin")
        let holder = Mutex<UploadSystem?>(nil)
        let announced = Mutex(false)
        let (first, _) = try Self.system(fixture, assets: [path], url: server.url) { event in
            switch event {
            case .uploadResourceAnnounced: announced.withLock { $0 = true }
            case .progress(_, let sent, _) where sent >= 1 << 20 && announced.withLock({ $0 }):
                holder.withLock { $0 }?.terminate()
            default: break
            }
        }
        holder.withLock { $0 = first }
        let stopped = try first.run()
        first.close()
        holder.withLock { $0 = nil }
        #expect(stopped.stoppedEarly == "terminated")
        let left = try #require(first.store.jobs.first)
        #expect(left.state == .pending)
        #expect(first.ledger[left.localID]?.uploadResource != nil)
        #expect(server.waitUntilIdle(timeout: .seconds(10)))

        let (second, policy) = try Self.system(fixture, assets: [path], url: server.url)
        defer { second.close() }
        #expect(try second.run().lastResult == .completed)
        let records = server.uploads()
        #expect(records.count == 1)
        #expect(records.first?.sha256 == TransferFixture.sha256(bytes))
        #expect(policy.outcomes.uploaded[path] == records.first?.id)
        let history = try #require(second.ledger[left.localID])
        #expect(history.attempts == 1)
        #expect(history.resumeOffsets.count == 1)
    }
}
