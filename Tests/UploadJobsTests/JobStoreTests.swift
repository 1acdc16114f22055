import Testing
import UploadJobs

struct JobStoreTests {
    struct Planned: Error {}

    @Test func defaultsAreDocumented() {
        let configuration = JobStoreConfiguration()
        #expect(configuration.inFlightLimit == 16)
        #expect(configuration.retryLimit == 3)
    }

    @Test(arguments: [0, 1, 3, 5])
    func retryLimitAllowsExactlyLimitPlusOneAttempts(limit: Int) throws {
        var store = JobFixtures.store(retries: limit)
        let id = try JobFixtures.create(&store)
        var attempts = 0
        while true {
            try JobFixtures.step(&store, id) { try $0.start($1) }
            attempts += 1
            try JobFixtures.failTransient(&store, id)
            guard store.fetch(.retry).map(\.localID) == [id] else { break }
            try JobFixtures.step(&store, id) { try $0.retry($1) }
        }
        #expect(attempts == limit + 1)
        #expect(store.job(id)?.attemptCount == limit + 1)
        #expect(store.job(id)?.retryCount == limit)
        let before = store
        #expect(JobFixtures.code { try JobFixtures.step(&store, id) { try $0.retry($1) } } == .retryLimitReached)
        #expect(store == before)
        #expect(store.fetch(.acknowledge).map(\.localID) == [id])
        try JobFixtures.step(&store, id) { try $0.acknowledge($1) }
        #expect(store.ledger[id]?.attempts == limit + 1)
        #expect(store.ledger[id]?.retries == limit)
    }

    @Test func creationStopsAtTheInFlightLimitAndKeepsWhatTheBlockMade() throws {
        var store = JobFixtures.store(inFlight: 3)
        var created: [JobID] = []
        var refusal: JobStoreError?
        let changes = try store.performChanges(at: 10) { block in
            for index in 1...5 {
                do throws(JobStoreError) {
                    created.append(try block.createJob(assetID: "a\(index)", destination: JobFixtures.destination))
                } catch {
                    refusal = error
                    break
                }
            }
        }
        #expect(created == [JobID(1), JobID(2), JobID(3)])
        #expect(changes.count == 3)
        #expect(refusal?.code == .limitExceeded)
        #expect(store.inFlightCount == 3)
        #expect(JobFixtures.code { _ = try JobFixtures.create(&store, asset: "a4") } == .limitExceeded)
    }

    /// Slots: held by registered, pending, succeeded and failed jobs; freed by acknowledge and by cancel.
    @Test func slotsAreHeldUntilAcknowledgedOrCancelled() throws {
        var store = JobFixtures.store(inFlight: 2)
        let first = try JobFixtures.create(&store, asset: "a1")
        let second = try JobFixtures.create(&store, asset: "a2")
        try JobFixtures.step(&store, first) { try $0.start($1) }
        try JobFixtures.failTransient(&store, first)
        try JobFixtures.step(&store, second) { try $0.start($1) }
        try JobFixtures.step(&store, second) { try $0.succeed($1, status: 201) }
        #expect(store.inFlightCount == 2)
        #expect(JobFixtures.code { _ = try JobFixtures.create(&store, asset: "a3") } == .limitExceeded)
        try JobFixtures.step(&store, first) { try $0.retry($1) }
        #expect(store.inFlightCount == 2)
        try JobFixtures.step(&store, second) { try $0.acknowledge($1) }
        let third = try JobFixtures.create(&store, asset: "a3")
        #expect(JobFixtures.code { _ = try JobFixtures.create(&store, asset: "a4") } == .limitExceeded)
        try JobFixtures.step(&store, third) { try $0.cancel($1) }
        #expect(store.inFlightCount == 1)
        _ = try JobFixtures.create(&store, asset: "a4")
        #expect(store.peakInFlight == 2)
    }

    @Test func retryIsRefusedWhenOtherJobsFillALoweredLimit() throws {
        var store = JobFixtures.store(inFlight: 3)
        let ids = try (1...3).map { try JobFixtures.create(&store, asset: "a\($0)") }
        try JobFixtures.step(&store, ids[0]) { try $0.start($1) }
        try JobFixtures.failTransient(&store, ids[0])
        store.configuration.inFlightLimit = 2
        let before = store
        #expect(JobFixtures.code { try JobFixtures.step(&store, ids[0]) { try $0.retry($1) } } == .limitExceeded)
        #expect(store == before)
        try JobFixtures.step(&store, ids[1]) { try $0.cancel($1) }
        try JobFixtures.step(&store, ids[0]) { try $0.retry($1) }
        #expect(store.job(ids[0])?.state == .registered)
    }

    @Test func aThrowingBlockRollsEverythingBack() throws {
        var store = JobFixtures.store()
        let kept = try JobFixtures.create(&store, asset: "kept")
        let before = store
        #expect(throws: Planned.self) {
            try store.performChanges(at: 50) { block in
                try block.start(kept)
                try block.createJob(assetID: "b", destination: JobFixtures.destination)
                throw Planned()
            }
        }
        #expect(store == before)
        #expect(store.job(kept)?.state == .registered)
        #expect(store.ledger.all.count == 1)
        #expect(try JobFixtures.create(&store, asset: "c") == JobID(2))
    }

    @Test func aRefusedChangeInsideABlockRollsBackTheBlockWhenItPropagates() throws {
        var store = JobFixtures.store()
        let id = try JobFixtures.create(&store)
        let before = store
        #expect(throws: JobStoreError.self) {
            try store.performChanges(at: 1) { block in
                try block.start(id)
                try block.start(id)
            }
        }
        #expect(store == before)
    }

    @Test func fetchReturnsJobsByActionInCreationOrder() throws {
        var store = JobFixtures.store(retries: 1)
        let ids = try (1...6).map { try JobFixtures.create(&store, asset: "a\($0)") }
        try store.performChanges(at: 1) { block in
            for id in ids.dropFirst() { try block.start(id) }
            try block.succeed(ids[2], status: 200)
            try block.fail(ids[3], error: .timedOut)
            try block.fail(ids[4], error: .badServerResponse, status: 500)
            try block.fail(ids[5], error: .timedOut)
            try block.retry(ids[5])
            try block.start(ids[5])
            try block.fail(ids[5], error: .timedOut)
        }
        #expect(store.fetch(.process).map(\.localID) == [ids[0], ids[1]])
        #expect(store.fetch(.retry).map(\.localID) == [ids[3], ids[4]])
        #expect(store.fetch(.acknowledge).map(\.localID) == [ids[2], ids[3], ids[4], ids[5]])
        #expect(store.jobs.map(\.localID) == ids)
    }

    @Test func theBlockSeesItsOwnChanges() throws {
        var store = JobFixtures.store()
        try store.performChanges(at: 0) { block in
            let id = try block.createJob(assetID: "x", destination: JobFixtures.destination)
            #expect(block.fetch(.process).map(\.localID) == [id])
            try block.start(id)
            #expect(block.job(id)?.state == .pending)
            #expect(block.inFlightCount == 1)
            #expect(block.changes.count == 2)
        }
    }

    @Test func destinationsFollowTheJobType() throws {
        var store = JobFixtures.store()
        #expect(
            JobFixtures.code {
                try store.performChanges(at: 0) { _ = try $0.createJob(assetID: "a", destination: nil) }
            } == .invalidDestination)
        #expect(
            JobFixtures.code {
                try store.performChanges(at: 0) {
                    _ = try $0.createJob(assetID: "a", destination: JobFixtures.destination, type: .downloadOnly)
                }
            } == .invalidDestination)
        var id: JobID?
        try store.performChanges(at: 0) { id = try $0.createJob(assetID: "a", destination: nil, type: .downloadOnly) }
        try JobFixtures.step(&store, id!) { try $0.start($1) }
        try JobFixtures.failTransient(&store, id!)
        #expect(
            JobFixtures.code {
                try JobFixtures.step(&store, id!) { try $0.retry($1, destination: JobFixtures.destination) }
            } == .invalidDestination)
        try JobFixtures.step(&store, id!) { try $0.retry($1) }
        #expect(store.job(id!)?.type == .downloadOnly)
    }

    @Test func retryWithANewDestinationReplacesItAndClearsTheLastOutcome() throws {
        var store = JobFixtures.store()
        let id = try JobFixtures.create(&store)
        try JobFixtures.step(&store, id) { try $0.start($1) }
        try JobFixtures.step(&store, id) {
            try $0.fail(
                $1, error: .userAuthenticationRequired, status: 401,
                headers: [HeaderField("WWW-Authenticate", "Bearer")])
        }
        #expect(store.job(id)?.responseHeaderFields == [HeaderField("www-authenticate", "Bearer")])
        var refreshed = JobFixtures.destination
        refreshed.headerFields[0] = HeaderField("Authorization", "Bearer t2")
        try JobFixtures.step(&store, id) { try $0.retry($1, destination: refreshed) }
        let job = try #require(store.job(id))
        #expect(job.destination == refreshed)
        #expect(job.error == nil && job.httpStatus == nil && job.responseHeaderFields.isEmpty)
        #expect(job.retryCount == 1)
    }

    @Test func responseHeaderNamesAreLowerCased() throws {
        var store = JobFixtures.store()
        let id = try JobFixtures.create(&store)
        try JobFixtures.step(&store, id) { try $0.start($1) }
        try JobFixtures.step(&store, id) {
            try $0.succeed(
                $1, status: 201, headers: [HeaderField("Location", "/u/1"), HeaderField("X-Server-Resource-ID", "r9")])
        }
        let job = try #require(store.job(id))
        #expect(job.responseHeaderFields.map(\.name) == ["location", "x-server-resource-id"])
        #expect(job.responseHeader("x-server-resource-id") == "r9")
        #expect(job.httpStatus == 201)
    }

    @Test func replayingTheCommittedChangesRebuildsTheStore() throws {
        var store = JobFixtures.store(inFlight: 2)
        var log: [(JobTime, [JobChange])] = []
        func commit(_ now: JobTime, _ body: (inout JobChangeBlock) throws -> Void) throws {
            log.append((now, try store.performChanges(at: now, body)))
        }
        try commit(1) { _ = try $0.createJob(assetID: "a", destination: JobFixtures.destination) }
        try commit(2) { try $0.start(JobID(1)) }
        try commit(3) { try $0.record(.bytesSent(ByteRange(offset: 0, length: 100)), job: JobID(1)) }
        try commit(4) { try $0.succeed(JobID(1), status: 200) }
        try commit(5) { try $0.acknowledge(JobID(1)) }
        var replayed = JobFixtures.store(inFlight: 2)
        for (time, changes) in log { try replayed.replay(changes, at: time) }
        #expect(replayed == store)
        var broken = JobFixtures.store()
        #expect(JobFixtures.code { try broken.replay(log[1].1, at: 2) } == .notFound)
        #expect(JobFixtures.code { try broken.replay(log[0].1 + log[0].1, at: 1) } == .replayMismatch)
        #expect(broken == JobFixtures.store())
    }
}
