import Foundation
import Synchronization
import Testing
import UploadClient
import UploadJobs
import UploadServer

/// The default policy's life cycle: enabling (with authorization) and disabling, durable across relaunches, and
/// `willTerminate` or a disable arriving from another thread in the middle of an invocation.
struct DefaultUploadPolicyLifecycleTests {
    /// Records the system's events in order.
    final class Events: Sendable {
        private let events = Mutex<[UploadSystemEvent]>([])

        func record(_ event: UploadSystemEvent) {
            events.withLock { $0.append(event) }
        }

        /// The invocations' results in order.
        var results: [ProcessJobsResult] {
            events.withLock { $0 }.compactMap { if case .invocation(_, let result) = $0 { result } else { nil } }
        }

        /// Transfers started between invocation `number` and the next one.
        func transfersStarted(afterInvocation number: Int) -> Int {
            let all = events.withLock { $0 }
            guard let start = all.firstIndex(of: .invocation(number: number, result: results[number - 1])) else {
                return 0
            }
            let rest = all[(start + 1)...]
            let end = rest.firstIndex { if case .invocation = $0 { true } else { false } } ?? rest.endIndex
            return rest[..<end].count { if case .transferStarted = $0 { true } else { false } }
        }
    }

    /// A system on the fixture's journal whose policy uploads `paths`, with `tokens` and an event log.
    static func system(
        _ fixture: TransferFixture, _ paths: [String], url: String, tokens: (any TokenSource)? = nil,
        inFlightLimit: Int, events: Events = Events()
    ) throws -> (UploadSystem, DefaultUploadPolicy) {
        try DefaultUploadPolicyTests.system(
            fixture, library: FileAssetLibrary(assetIDs: paths), url: url, tokens: tokens,
            jobs: JobStoreConfiguration(inFlightLimit: inFlightLimit), observer: events.record)
    }

    @Test func enablingRequiresAuthorizationAndTheFlagIsDurable() throws {
        let fixture = try TransferFixture()
        let path = fixture.folder.file("state.json")
        let template = UploadDestinationTemplate(url: "http://127.0.0.1:9/upload", tokens: nil)
        let policy = try DefaultUploadPolicy(assets: ["/a"], destination: template, statePath: path)
        #expect(policy.isEnabled)
        try policy.disable()
        #expect(!policy.isEnabled)
        #expect(try !DefaultUploadPolicy(assets: ["/a"], destination: template, statePath: path).isEnabled)

        #expect(throws: UploadPolicyError.self) { try policy.enable(authorized: false) }
        do {
            try policy.enable(authorized: false)
        } catch let error as UploadPolicyError {
            #expect(error.code == .notAuthorized)
        }
        #expect(!policy.isEnabled)
        try policy.enable(authorized: true)
        #expect(policy.isEnabled)
        #expect(try DefaultUploadPolicy(assets: ["/a"], destination: template, statePath: path).isEnabled)
    }

    /// Three registered jobs are left by a run terminated before any transfer; the policy is disabled. The next
    /// run cancels them, creates none and completes at once; after enabling, every asset is uploaded exactly once.
    @Test func aDisabledPolicyCancelsHeldJobsAndEnablingUploadsEverythingOnce() throws {
        let fixture = try TransferFixture()
        let server = try fixture.server()
        defer { server.stop() }
        let files = try UploadSystemTests.assets(fixture, count: 5)
        let paths = files.map(\.0)
        let holder = Mutex<UploadSystem?>(nil)
        let (first, signedIn) = try DefaultUploadPolicyTests.system(
            fixture, library: FileAssetLibrary(assetIDs: paths), url: server.url,
            jobs: JobStoreConfiguration(inFlightLimit: 3)
        ) { event in
            if case .invocation = event { holder.withLock { $0 }?.terminate() }
        }
        holder.withLock { $0 = first }
        #expect(try first.run().stoppedEarly == "terminated")
        #expect(first.store.jobs.count == 3)
        try signedIn.disable()
        first.close()
        holder.withLock { $0 = nil }

        let events = Events()
        let (second, signedOut) = try Self.system(fixture, paths, url: server.url, inFlightLimit: 3, events: events)
        let summary = try second.run()
        second.close()
        #expect(summary.lastResult == .completed)
        #expect(events.results == [.completed])
        #expect(second.store.jobs.isEmpty)
        #expect(second.ledger.all.map(\.state) == Array(repeating: .cancelled, count: 3))
        #expect(second.ledger.all.allSatisfy { $0.attempts == 0 })
        #expect(server.uploads().isEmpty)
        #expect(signedOut.outcomes.queued == paths)
        #expect(throws: UploadPolicyError.self) { try signedOut.enable(authorized: false) }
        #expect(!signedOut.isEnabled)
        try signedOut.enable(authorized: true)

        let (third, enabled) = try Self.system(fixture, paths, url: server.url, inFlightLimit: 3)
        defer { third.close() }
        #expect(try third.run().lastResult == .completed)
        let records = server.uploads()
        #expect(records.count == 5)
        #expect(records.compactMap(\.sha256).sorted() == files.map(\.1).sorted())
        #expect(third.ledger.all.count == 8)
        #expect(UploadSystemTests.acknowledgements(third.ledger) == Array(repeating: 1, count: 8))
        #expect(Set(enabled.outcomes.uploaded.keys) == Set(paths))
    }

    /// `willTerminate` from another thread while the third job's destination is built: the invocation creates the
    /// three jobs it has destinations for and returns `processing`; later invocations create the rest.
    @Test func willTerminateMidCreationReturnsProcessingAndTheNextInvocationContinues() throws {
        let fixture = try TransferFixture()
        let server = try fixture.server()
        defer { server.stop() }
        let files = try UploadSystemTests.assets(fixture, count: 10, size: 20_000)
        let target = Mutex<DefaultUploadPolicy?>(nil)
        let tokens = HookedTokens(calls: [3]) { target.withLock { $0 }?.willTerminate() }
        let events = Events()
        let (system, policy) = try Self.system(
            fixture, files.map(\.0), url: server.url, tokens: tokens, inFlightLimit: 8, events: events)
        defer { system.close() }
        target.withLock { $0 = policy }

        #expect(try system.run().lastResult == .completed)

        #expect(events.results.first == .processing)
        #expect(events.transfersStarted(afterInvocation: 1) == 3)
        Self.expectEachUploadedOnce(system, server, files)
    }

    /// Terminations on several token requests, including the retries after an expired token: no job is lost or
    /// run twice, every asset ends uploaded once.
    @Test func repeatedTerminationsLoseAndDuplicateNothing() throws {
        let fixture = try TransferFixture()
        let server = try fixture.server { $0.authentication = AuthenticationConfiguration(tokenLifetime: 600) }
        defer { server.stop() }
        let endpoint = TokenEndpoint(url: server.url + "/_squall/token?principal=carol")
        _ = try endpoint.token(refresh: false)
        try server.expireTokens()
        let files = try UploadSystemTests.assets(fixture, count: 6, size: 20_000)
        let target = Mutex<DefaultUploadPolicy?>(nil)
        let tokens = HookedTokens(base: endpoint, calls: [2, 5, 7, 8, 9]) { target.withLock { $0 }?.willTerminate() }
        let events = Events()
        let (system, policy) = try Self.system(
            fixture, files.map(\.0), url: server.url, tokens: tokens, inFlightLimit: 4, events: events)
        defer { system.close() }
        target.withLock { $0 = policy }

        #expect(try system.run().lastResult == .completed)

        #expect(events.results.first == .processing)
        #expect(tokens.callCount >= 8)
        #expect(policy.outcomes.failed.isEmpty)
        Self.expectEachUploadedOnce(system, server, files)
        for history in system.ledger.all {
            #expect(history.errors.allSatisfy { $0 == .userAuthenticationRequired })
            #expect(history.attempts == history.retries + 1)
        }
    }

    /// A disable from another thread while the second job's destination is built: the invocation creates nothing
    /// and returns `processing`; the next one completes at once; every asset stays queued.
    @Test func disablingMidInvocationStopsCreation() throws {
        let fixture = try TransferFixture()
        let server = try fixture.server()
        defer { server.stop() }
        let files = try UploadSystemTests.assets(fixture, count: 6)
        let target = Mutex<DefaultUploadPolicy?>(nil)
        let tokens = HookedTokens(calls: [2]) { try? target.withLock { $0 }?.disable() }
        let events = Events()
        let (system, policy) = try Self.system(
            fixture, files.map(\.0), url: server.url, tokens: tokens, inFlightLimit: 6, events: events)
        defer { system.close() }
        target.withLock { $0 = policy }

        #expect(try system.run().lastResult == .completed)

        #expect(events.results == [.processing, .completed])
        #expect(tokens.callCount == 2)
        #expect(system.ledger.all.isEmpty)
        #expect(server.uploads().isEmpty)
        #expect(policy.outcomes.queued == files.map(\.0))
        #expect(!policy.isEnabled)
    }

    static func expectEachUploadedOnce(_ system: UploadSystem, _ server: UploadServer, _ files: [(String, String)]) {
        let records = server.uploads().filter { $0.complete }
        #expect(records.count == files.count)
        #expect(records.compactMap(\.sha256).sorted() == files.map(\.1).sorted())
        #expect(system.ledger.all.map(\.assetID).sorted() == files.map(\.0).sorted())
        #expect(UploadSystemTests.acknowledgements(system.ledger) == Array(repeating: 1, count: files.count))
    }
}

/// A token source that, on chosen calls (counted from 1), runs `action` on another thread and waits for it before
/// answering with `base`'s token: a host app or the system acting while the policy builds a destination.
final class HookedTokens: TokenSource {
    let base: any TokenSource
    let calls: Set<Int>
    let action: @Sendable () -> Void
    private let count = Mutex(0)

    init(base: any TokenSource = StaticToken("token"), calls: Set<Int>, action: @escaping @Sendable () -> Void) {
        self.base = base
        self.calls = calls
        self.action = action
    }

    var callCount: Int { count.withLock { $0 } }

    var canRefresh: Bool { base.canRefresh }

    func token(refresh: Bool) throws -> String {
        let number = count.withLock { count in
            count += 1
            return count
        }
        if calls.contains(number) {
            let done = DispatchSemaphore(value: 0)
            let action = self.action
            Thread {
                action()
                done.signal()
            }.start()
            done.wait()
        }
        return try base.token(refresh: refresh)
    }
}
