import Foundation
import HTTPWire
import Synchronization
import TestSupport
import Testing
import UploadClient
import UploadJobs
import UploadServer

/// The default policy's knobs (permanent errors, token refresh, redundant jobs) and its state file, run by an
/// `UploadSystem` in developer mode against the reference server or a scripted one.
struct DefaultUploadPolicyTests {
    /// A system in developer mode whose extension is a default policy reading `library`.
    static func system(
        _ fixture: TransferFixture, library: any AssetLibrary, url: String, tokens: (any TokenSource)? = nil,
        configuration: UploadPolicyConfiguration = UploadPolicyConfiguration(),
        jobs: JobStoreConfiguration = JobStoreConfiguration(),
        observer: @escaping @Sendable (UploadSystemEvent) -> Void = { _ in }
    ) throws -> (UploadSystem, DefaultUploadPolicy) {
        let policy = try DefaultUploadPolicy(
            library: library, destination: UploadDestinationTemplate(url: url + "/upload", tokens: tokens),
            statePath: fixture.folder.file("journal.extension.json"), configuration: configuration)
        return (try system(fixture, extension: policy, jobs: jobs, observer: observer), policy)
    }

    /// A system in developer mode on the fixture's journal with `handler` as its extension.
    static func system(
        _ fixture: TransferFixture, extension handler: any UploadExtension,
        jobs: JobStoreConfiguration = JobStoreConfiguration(),
        observer: @escaping @Sendable (UploadSystemEvent) -> Void = { _ in }
    ) throws -> UploadSystem {
        try UploadSystem(
            journalFolder: fixture.folder.file("journal"),
            configuration: UploadSystemConfiguration(jobs: jobs, developerMode: true), extension: handler,
            sleeper: { _ in }, observer: observer)
    }

    /// A scripted server answering every request (OPTIONS and POST alike) with 500.
    static func failingServer() throws -> ScriptedServer {
        try ScriptedServer(steps: Array(repeating: ScriptedStep(respond: 500), count: 40))
    }

    @Test(arguments: [true, false])
    func badServerResponseIsAcknowledgedOrRetriedUntilTheRetryLimit(permanent: Bool) throws {
        let fixture = try TransferFixture()
        let server = try Self.failingServer()
        defer { server.stop() }
        let files = try UploadSystemTests.assets(fixture, count: 1, size: 2_000)
        let configuration = UploadPolicyConfiguration(
            permanentErrors: permanent
                ? [.badServerResponse, .userAuthenticationRequired] : [.userAuthenticationRequired])
        let (system, policy) = try Self.system(
            fixture, library: FileAssetLibrary(assetIDs: files.map(\.0)), url: server.url,
            configuration: configuration, jobs: JobStoreConfiguration(inFlightLimit: 2, retryLimit: 2))
        defer { system.close() }

        #expect(try system.run().lastResult == .completed)

        let history = try #require(system.ledger.all.first)
        let attempts = permanent ? 1 : 3
        #expect(history.attempts == attempts)
        #expect(history.errors == Array(repeating: .badServerResponse, count: attempts))
        #expect(history.statuses == Array(repeating: 500, count: attempts))
        #expect(UploadSystemTests.acknowledgements(system.ledger) == [1])
        #expect(server.requests.filter { $0.head.method == .post }.count == attempts)
        #expect(policy.outcomes.failed == [files[0].0: .badServerResponse])
        #expect(policy.outcomes.uploaded.isEmpty)
        #expect(policy.outcomes.queued.isEmpty)
    }

    @Test(arguments: [true, false])
    func anExpiredTokenIsRefreshedOnlyWhenAsked(refresh: Bool) throws {
        let fixture = try TransferFixture()
        let server = try fixture.server { $0.authentication = AuthenticationConfiguration(tokenLifetime: 600) }
        defer { server.stop() }
        let tokens = TokenEndpoint(url: server.url + "/_squall/token?principal=bob")
        _ = try tokens.token(refresh: false)
        try server.expireTokens()
        let files = try UploadSystemTests.assets(fixture, count: 2)
        let (system, policy) = try Self.system(
            fixture, library: FileAssetLibrary(assetIDs: files.map(\.0)), url: server.url, tokens: tokens,
            configuration: UploadPolicyConfiguration(refreshAuthentication: refresh))
        defer { system.close() }

        #expect(try system.run().lastResult == .completed)

        let complete = server.uploads().filter(\.complete)
        #expect(complete.count == (refresh ? 2 : 0))
        #expect(Set(complete.compactMap(\.sha256)) == (refresh ? Set(files.map(\.1)) : []))
        #expect(policy.outcomes.uploaded.count == (refresh ? 2 : 0))
        #expect(policy.outcomes.failed.count == (refresh ? 0 : 2))
        #expect(policy.outcomes.failed.values.allSatisfy { $0 == .userAuthenticationRequired })
        for history in system.ledger.all {
            #expect(history.attempts == (refresh ? 2 : 1))
            #expect(history.errors == [.userAuthenticationRequired])
            #expect(history.retries == (refresh ? 1 : 0))
        }
        #expect(UploadSystemTests.acknowledgements(system.ledger) == [1, 1])
    }

    /// Two registered jobs per asset, left by an extension that ignores redundancy (the run is terminated before
    /// any transfer starts); the default policy then runs on the same journal.
    @Test(arguments: [true, false])
    func redundantJobsAreCancelledOnlyWhenAsked(cancel: Bool) throws {
        let fixture = try TransferFixture()
        let server = try fixture.server()
        defer { server.stop() }
        let files = try UploadSystemTests.assets(fixture, count: 2)
        let destination = UploadDestination(url: server.url + "/upload")
        let holder = Mutex<UploadSystem?>(nil)
        let first = try Self.system(fixture, extension: DuplicatingExtension(files.map(\.0), destination)) { event in
            if case .invocation = event { holder.withLock { $0 }?.terminate() }
        }
        holder.withLock { $0 = first }
        #expect(try first.run().stoppedEarly == "terminated")
        #expect(first.store.jobs.map(\.state) == Array(repeating: .registered, count: 4))
        first.close()
        holder.withLock { $0 = nil }

        let (system, policy) = try Self.system(
            fixture, library: FileAssetLibrary(assetIDs: files.map(\.0)), url: server.url,
            configuration: UploadPolicyConfiguration(cancelRedundantJobs: cancel))
        defer { system.close() }
        #expect(try system.run().lastResult == .completed)

        let records = server.uploads()
        #expect(records.count == (cancel ? 2 : 4))
        #expect(records.allSatisfy { $0.complete })
        #expect(Set(records.compactMap(\.sha256)) == Set(files.map(\.1)))
        let histories = system.ledger.all
        #expect(histories.count == 4)
        #expect(histories.filter { $0.state == .cancelled }.count == (cancel ? 2 : 0))
        #expect(histories.filter { $0.state == .cancelled }.allSatisfy { $0.attempts == 0 })
        #expect(UploadSystemTests.acknowledgements(system.ledger) == [1, 1, 1, 1])
        #expect(policy.outcomes.uploaded.count == 2)
    }

    /// A state file written before the queue, token and enabled flag existed still loads: its uploaded asset is
    /// not uploaded again, the other one is.
    @Test func aStateFileWithoutTheNewKeysLoads() throws {
        let fixture = try TransferFixture()
        let server = try fixture.server()
        defer { server.stop() }
        let files = try UploadSystemTests.assets(fixture, count: 2)
        let old = #"{"failed":{},"uploaded":{"\#(files[0].0)":"earlier"}}"#
        try Data(old.utf8).write(to: URL(fileURLWithPath: fixture.folder.file("journal.extension.json")))
        let (system, policy) = try Self.system(
            fixture, library: FileAssetLibrary(assetIDs: files.map(\.0)), url: server.url)
        defer { system.close() }

        #expect(policy.isEnabled)
        #expect(policy.outcomes.changeToken == nil)
        #expect(try system.run().lastResult == .completed)
        let records = server.uploads()
        #expect(records.map(\.sha256) == [files[1].1])
        #expect(policy.outcomes.uploaded[files[0].0] == "earlier")
        #expect(policy.outcomes.uploaded[files[1].0] == records.first?.id)
        #expect(policy.outcomes.changeToken?.library == FileAssetLibrary(assetIDs: files.map(\.0)).name)
    }

    @Test func anUnreadableStateFileIsAnError() throws {
        let fixture = try TransferFixture()
        let path = fixture.folder.file("broken.json")
        try Data("{\"queued\": 3}".utf8).write(to: URL(fileURLWithPath: path))
        let template = UploadDestinationTemplate(url: "http://127.0.0.1:9/upload", tokens: nil)
        #expect(throws: AssetError.self) {
            try DefaultUploadPolicy(assets: [], destination: template, statePath: path)
        }
    }
}

/// An extension that creates two jobs for every asset in its first invocation (a policy that does not check for
/// redundancy), then nothing.
final class DuplicatingExtension: UploadExtension {
    let assets: [String]
    let destination: UploadDestination

    init(_ assets: [String], _ destination: UploadDestination) {
        self.assets = assets
        self.destination = destination
    }

    func processJobs(_ context: ExtensionContext) -> ProcessJobsResult {
        guard context.jobs.isEmpty else { return .processing }
        do {
            try context.performChanges { block in
                for asset in assets + assets { try block.createJob(assetID: asset, destination: destination) }
            }
            return .processing
        } catch {
            return .failure
        }
    }

    func willTerminate() {}
}
