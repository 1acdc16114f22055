import Synchronization
import Testing
import UploadClient
import UploadJobs
import UploadServer

/// The default policy's persistent change tracking: assets added to the library become work, and an expired
/// change token leads to one `processing` invocation and a full re-sync that uploads nothing twice.
struct DefaultUploadPolicyChangeTrackingTests {
    /// Each history's asset, in creation order.
    static func assetsOfJobs(_ ledger: JobLedger) -> [String] {
        ledger.all.map(\.assetID)
    }

    @Test func assetsAddedDuringARunAndBetweenRunsAreUploaded() throws {
        let fixture = try TransferFixture()
        let server = try fixture.server()
        defer { server.stop() }
        let files = try UploadSystemTests.assets(fixture, count: 5)
        let paths = files.map(\.0)
        let library = MutableAssetLibrary(assetIDs: Array(paths[0..<2]))
        let added = Mutex(false)
        let (system, policy) = try DefaultUploadPolicyTests.system(
            fixture, library: library, url: server.url, jobs: JobStoreConfiguration(inFlightLimit: 1)
        ) { event in
            guard case .transferEnded = event else { return }
            let first = added.withLock { added in
                defer { added = true }
                return !added
            }
            if first { library.add(Array(paths[2..<4])) }
        }
        #expect(try system.run().lastResult == .completed)
        system.close()
        #expect(server.uploads().count == 4)
        #expect(Set(policy.outcomes.uploaded.keys) == Set(paths[0..<4]))

        library.add([paths[4]])
        let (second, relaunched) = try DefaultUploadPolicyTests.system(fixture, library: library, url: server.url)
        defer { second.close() }
        #expect(try second.run().lastResult == .completed)

        let records = server.uploads()
        #expect(records.count == 5)
        #expect(records.allSatisfy { $0.complete })
        #expect(Set(records.compactMap(\.sha256)) == Set(files.map(\.1)))
        #expect(Self.assetsOfJobs(second.ledger).sorted() == paths.sorted())
        #expect(second.ledger.all.allSatisfy { $0.attempts == 1 })
        #expect(Set(relaunched.outcomes.uploaded.keys) == Set(paths))
        #expect(relaunched.outcomes.queued.isEmpty)
    }

    @Test func anExpiredTokenGivesProcessingThenAFullResyncWithoutDuplicates() throws {
        let fixture = try TransferFixture()
        let server = try fixture.server()
        defer { server.stop() }
        let files = try UploadSystemTests.assets(fixture, count: 4)
        let paths = files.map(\.0)
        let library = MutableAssetLibrary(assetIDs: Array(paths[0..<3]))
        let (first, _) = try DefaultUploadPolicyTests.system(fixture, library: library, url: server.url)
        #expect(try first.run().lastResult == .completed)
        first.close()
        #expect(server.uploads().count == 3)

        library.expireChangeTokens()
        library.add([paths[3]])
        let results = Mutex<[ProcessJobsResult]>([])
        let (second, policy) = try DefaultUploadPolicyTests.system(fixture, library: library, url: server.url) {
            if case .invocation(_, let result) = $0 { results.withLock { $0.append(result) } }
        }
        defer { second.close() }
        #expect(policy.outcomes.changeToken?.generation == 0)
        #expect(try second.run().lastResult == .completed)

        let invocations = results.withLock { $0 }
        #expect(invocations.first == .processing)
        #expect(invocations.last == .completed)
        #expect(policy.outcomes.changeToken?.generation == 1)
        let records = server.uploads()
        #expect(records.count == 4)
        #expect(records.compactMap(\.sha256).sorted() == files.map(\.1).sorted())
        #expect(Self.assetsOfJobs(second.ledger).sorted() == paths.sorted())
        #expect(Set(policy.outcomes.uploaded.keys) == Set(paths))
    }

    /// The token expires while jobs are held: the queued assets are fetched again, the held and the uploaded
    /// ones get no second job.
    @Test func anExpiryMidRunUploadsEachAssetOnce() throws {
        let fixture = try TransferFixture()
        let server = try fixture.server()
        defer { server.stop() }
        let files = try UploadSystemTests.assets(fixture, count: 5)
        let library = MutableAssetLibrary(assetIDs: files.map(\.0))
        let expired = Mutex(0)
        let (system, policy) = try DefaultUploadPolicyTests.system(
            fixture, library: library, url: server.url, jobs: JobStoreConfiguration(inFlightLimit: 2)
        ) { event in
            guard case .transferEnded = event else { return }
            let expire = expired.withLock { count in
                defer { count += 1 }
                return count < 2
            }
            if expire { library.expireChangeTokens() }
        }
        defer { system.close() }

        #expect(try system.run().lastResult == .completed)

        #expect(policy.outcomes.changeToken?.generation == 2)
        let records = server.uploads()
        #expect(records.count == 5)
        #expect(records.compactMap(\.sha256).sorted() == files.map(\.1).sorted())
        #expect(Self.assetsOfJobs(system.ledger).sorted() == files.map(\.0).sorted())
        #expect(UploadSystemTests.acknowledgements(system.ledger) == Array(repeating: 1, count: 5))
    }
}
