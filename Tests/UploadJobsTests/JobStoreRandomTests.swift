import TestSupport
import Testing
import UploadJobs

/// Seeded random change blocks (1 to 3 random operations each, on random jobs, legal or not) checked against the
/// store's invariants after every block, then a drain that acknowledges everything.
struct JobStoreRandomTests {
    static let inFlightLimit = 4
    static let retryLimit = 2

    enum Operation: CaseIterable {
        case create, start, succeed, fail, retry, acknowledge, cancel, recordBytes
    }

    /// What the test has seen committed.
    struct Tracker {
        var created: [JobID] = []
        var removals: [JobID: Int] = [:]

        mutating func note(_ changes: [JobChange]) {
            for change in changes {
                switch change {
                case .created(let job): created.append(job.localID)
                case .acknowledged(let id), .cancelled(let id): removals[id, default: 0] += 1
                default: break
                }
            }
        }
    }

    @Test(arguments: [1, 2, 3, 42, 2026] as [UInt64])
    func randomBlocksKeepTheInvariants(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        var store = JobFixtures.store(inFlight: Self.inFlightLimit, retries: Self.retryLimit)
        var replayed = store
        var tracker = Tracker()
        var refused = 0
        for step in 0..<3_000 {
            let now = JobTime(step)
            let before = store
            let held = store.jobs.map(\.localID)
            let anyID = tracker.created + [JobID(tracker.created.count + 1)]
            do {
                let changes = try store.performChanges(at: now) { block in
                    for _ in 0..<Int.random(in: 1...3, using: &generator) {
                        let pool = held.isEmpty || Int.random(in: 0..<5, using: &generator) == 0 ? anyID : held
                        let id = pool.randomElement(using: &generator)!
                        try apply(Operation.allCases.randomElement(using: &generator)!, id, &block, &generator)
                    }
                }
                tracker.note(changes)
                try replayed.replay(changes, at: now)
            } catch is JobStoreError {
                refused += 1
                #expect(store == before)
            }
            try check(store, replayed: replayed, tracker: tracker, full: step % 50 == 49)
        }
        #expect(tracker.created.count > 100)
        #expect(refused > 100)
        #expect(store.peakInFlight == Self.inFlightLimit)
        try drain(&store, tracker: &tracker)
        #expect(store.inFlightCount == 0)
        #expect(tracker.created.allSatisfy { tracker.removals[$0] == 1 })
        #expect(store.ledger.all.allSatisfy { $0.acknowledgedAt != nil })
    }

    private func apply(
        _ operation: Operation, _ id: JobID, _ block: inout JobChangeBlock, _ generator: inout SeededGenerator
    ) throws {
        switch operation {
        case .create:
            try block.createJob(
                assetID: "asset-\(Int.random(in: 0..<50, using: &generator))",
                destination: JobFixtures.destination)
        case .start: try block.start(id)
        case .succeed: try block.succeed(id, status: 201)
        case .fail: try block.fail(id, error: JobError.allCases.randomElement(using: &generator)!)
        case .retry: try block.retry(id, destination: Bool.random(using: &generator) ? JobFixtures.destination : nil)
        case .acknowledge: try block.acknowledge(id)
        case .cancel: try block.cancel(id)
        case .recordBytes: try block.record(.bytesSent(ByteRange(offset: 0, length: 64)), job: id)
        }
    }

    /// The invariants: limit respected, no job lost or duplicated, each removed exactly once, counts within their
    /// limits, ledger in step with the store; every 50 blocks (`full`), the replayed store equals the live one.
    private func check(_ store: JobStore, replayed: JobStore, tracker: Tracker, full: Bool) throws {
        #expect(store.inFlightCount <= Self.inFlightLimit)
        let held = store.jobs.map(\.localID)
        let removed = tracker.removals.keys
        #expect(Set(held).count == held.count)
        #expect(tracker.removals.values.allSatisfy { $0 == 1 })
        #expect(Set(held).isDisjoint(with: removed))
        #expect(held.count + removed.count == tracker.created.count)
        for job in store.jobs {
            #expect(job.retryCount <= Self.retryLimit)
            #expect(job.attemptCount <= job.retryCount + 1)
            #expect(store.ledger[job.localID]?.state == job.state)
            #expect(store.ledger[job.localID]?.attempts == job.attemptCount)
        }
        if full {
            #expect(store.ledger.all.map(\.localID) == tracker.created)
            #expect(replayed == store)
        }
    }

    /// Takes every held job to an end and acknowledges it, retrying transient failures while retries last.
    private func drain(_ store: inout JobStore, tracker: inout Tracker) throws {
        while store.inFlightCount > 0 {
            let changes = try store.performChanges(at: 10_000) { block in
                for job in block.fetch(.process) {
                    if job.state == .registered { try block.start(job.localID) }
                    try block.fail(job.localID, error: .timedOut)
                }
                for job in block.fetch(.retry) { try block.retry(job.localID) }
                for job in block.fetch(.acknowledge) where job.state == .succeeded || job.retryCount == Self.retryLimit
                {
                    try block.acknowledge(job.localID)
                }
            }
            tracker.note(changes)
        }
    }
}
