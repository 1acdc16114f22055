import Testing
import UploadJobs

/// Every operation from every state: the legal ones land, the illegal ones throw a typed error and change
/// nothing.
struct JobStoreTransitionTests {
    /// Where the job is before the operation.
    enum Origin: String, CaseIterable, CustomTestStringConvertible {
        case registered, pending, succeeded, failed, acknowledged, cancelled

        var testDescription: String { rawValue }

        /// A store holding one job brought to this origin, and its id.
        func make() throws -> (JobStore, JobID) {
            var store = JobFixtures.store()
            let id = try JobFixtures.create(&store)
            let steps: [(inout JobChangeBlock, JobID) throws -> Void] =
                switch self {
                case .registered: []
                case .pending: [{ try $0.start($1) }]
                case .succeeded: [{ try $0.start($1) }, { try $0.succeed($1, status: 201) }]
                case .failed: [{ try $0.start($1) }, { try $0.fail($1, error: .timedOut) }]
                case .acknowledged:
                    [{ try $0.start($1) }, { try $0.succeed($1, status: 200) }, { try $0.acknowledge($1) }]
                case .cancelled: [{ try $0.cancel($1) }]
                }
            for step in steps { try JobFixtures.step(&store, id, step) }
            return (store, id)
        }
    }

    /// One operation.
    enum Operation: String, CaseIterable, CustomTestStringConvertible {
        case start, succeed, fail, retry, acknowledge, cancel, recordBytes, recordResourceID

        var testDescription: String { rawValue }

        func apply(_ block: inout JobChangeBlock, _ id: JobID) throws {
            switch self {
            case .start: try block.start(id)
            case .succeed: try block.succeed(id, status: 200)
            case .fail: try block.fail(id, error: .cannotConnectToHost)
            case .retry: try block.retry(id)
            case .acknowledge: try block.acknowledge(id)
            case .cancel: try block.cancel(id)
            case .recordBytes: try block.record(.bytesSent(ByteRange(offset: 0, length: 10)), job: id)
            case .recordResourceID: try block.record(.serverResourceID("r-1"), job: id)
            }
        }
    }

    /// The legal operations and the state each leaves the job in (nil: the job leaves the store).
    static let legal: [Origin: [Operation: JobState?]] = [
        .registered: [.start: .pending, .cancel: nil, .recordResourceID: .registered],
        .pending: [
            .succeed: .succeeded, .fail: .failed, .cancel: nil, .recordBytes: .pending, .recordResourceID: .pending,
        ],
        .succeeded: [.acknowledge: nil, .recordResourceID: .succeeded],
        .failed: [.retry: .registered, .acknowledge: nil, .recordResourceID: .failed],
    ]

    @Test(arguments: Origin.allCases, Operation.allCases)
    func transition(from origin: Origin, operation: Operation) throws {
        let (before, id) = try origin.make()
        var store = before
        let code = JobFixtures.code { try JobFixtures.step(&store, id) { try operation.apply(&$0, $1) } }
        if let outcome = Self.legal[origin]?[operation] {
            #expect(code == nil)
            #expect(store.job(id)?.state == outcome)
            #expect(store != before)
        } else {
            let expected: JobStoreError.Code = store.job(id) == nil ? .notFound : .invalidTransition
            #expect(code == expected)
            #expect(store == before)
        }
    }

    @Test func illegalTransitionNamesTheJobAndStates() throws {
        var (store, id) = try Origin.succeeded.make()
        do {
            try JobFixtures.step(&store, id) { try $0.cancel($1) }
            Issue.record("cancelling a succeeded job was accepted")
        } catch let error as JobStoreError {
            #expect(error.code == .invalidTransition)
            #expect(error.job == id)
            #expect(error.detail == "cannot cancel job-1: it is succeeded, not registered or pending")
        }
    }

    @Test func cancelledJobsAreAcknowledgedAutomatically() throws {
        for origin in [Origin.registered, .pending] {
            var (store, id) = try origin.make()
            try JobFixtures.step(&store, id) { try $0.cancel($1) }
            #expect(store.job(id) == nil)
            #expect(store.inFlightCount == 0)
            #expect(store.ledger[id]?.state == .cancelled)
            #expect(store.ledger[id]?.entries.last?.event == .acknowledged(automatic: true))
        }
    }

    @Test(arguments: [
        (200, nil as JobError?, nil as JobStoreError.Code?), (299, nil, nil), (404, nil, .invalidResponse),
        (199, nil, .invalidResponse), (500, .badServerResponse, nil), (401, .userAuthenticationRequired, nil),
        (204, .badServerResponse, .invalidResponse), (600, .badServerResponse, .invalidResponse),
    ])
    func finalStatusMustMatchTheOutcome(status: Int, error: JobError?, expected: JobStoreError.Code?) throws {
        var (store, id) = try Origin.pending.make()
        let code = JobFixtures.code {
            try JobFixtures.step(&store, id) { block, id in
                if let error {
                    try block.fail(id, error: error, status: status)
                } else {
                    try block.succeed(id, status: status)
                }
            }
        }
        #expect(code == expected)
        #expect(store.job(id)?.state == (expected == nil ? (error == nil ? .succeeded : .failed) : .pending))
    }

    @Test func failureWithoutAResponseKeepsNoStatus() throws {
        var (store, id) = try Origin.pending.make()
        try JobFixtures.step(&store, id) { try $0.fail($1, error: .timedOut) }
        #expect(store.job(id)?.error == .timedOut)
        #expect(store.job(id)?.httpStatus == nil)
    }

    @Test func impossibleTransferEventsAreRefused() throws {
        var (store, id) = try Origin.pending.make()
        let events: [JobEvent] = [
            .bytesSent(ByteRange(offset: -1, length: 4)), .bytesSent(ByteRange(offset: 0, length: -4)),
            .resumed(offset: -2), .serverResourceID(""),
        ]
        for event in events {
            #expect(JobFixtures.code { try store.record(event, job: id, at: 5) } == .invalidEvent)
        }
        try store.record(.resumed(offset: 7), job: id, at: 5)
        #expect(store.ledger[id]?.resumeOffsets == [7])
    }
}
