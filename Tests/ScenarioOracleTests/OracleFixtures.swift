import FaultEngine
import HTTPWire
import ProxyTranscript
import Scenario
import UploadJobs

/// `Scenario`'s expectation, named apart from Swift Testing's `Expectation`.
typealias ScenarioExpectation = Expectation

/// Hand-built scenarios, ledgers and transcripts for the oracle's tests.
enum OracleFixtures {
    static let destination = UploadDestination(url: "http://127.0.0.1:1/upload")

    /// A scenario of `count` assets `photo-N` of `size` bytes expecting `expect`.
    static func scenario(
        _ expect: [Expectation], count: Int = 2, size: Int64 = 1000, retryLimit: Int = 3
    ) -> Scenario {
        var client = ClientSpec()
        client.retryLimit = retryLimit
        return Scenario(
            name: "fixture", description: "a hand-built run", client: client,
            assets: [AssetSpec(name: "photo", size: size, count: count)], expect: expect)
    }

    /// The digests of `scenario(count:size:)`'s assets: asset id `/assets/photo-N`, sha256 `sha-N`.
    static func assets(count: Int = 2, size: Int64 = 1000) -> [AssetDigest] {
        (1...count).map {
            AssetDigest(name: "photo-\($0)", assetID: "/assets/photo-\($0)", size: size, sha256: "sha-\($0)")
        }
    }

    /// An observation with defaults for everything not given.
    static func observation(
        ledger: JobLedger = JobLedger(), transcript: Transcript = Transcript(), serverUploads: [ServerUpload]? = [],
        assets: [AssetDigest] = assets(), processJobsResults: [String] = [], peakInFlight: Int = 1,
        neverFired: [String] = [], wallTime: Duration = .milliseconds(1500), timedOut: Bool = false
    ) -> RunObservation {
        RunObservation(
            ledger: ledger, transcript: transcript, serverUploads: serverUploads, assets: assets,
            processJobsResults: processJobsResults, peakInFlight: peakInFlight, neverFired: neverFired,
            wallTime: wallTime, timedOut: timedOut)
    }

    /// One transfer as the system runs it: how it ends, after which byte ranges and resumes.
    struct Transfer {
        var ranges: [ByteRange]
        var resumes: [Int64] = []
        /// nil: succeeded with 201; else failed with this error and status.
        var failure: (JobError, Int?)?
        var resourceID: String?
        /// The upload resource's `Location`, when the client learned it (a 104).
        var location: String?
    }

    /// A store with `retryLimit` whose jobs (one per `transfers` element, for `photo-1`, `photo-2`, …) run their
    /// transfers in order, each retried after a failure while any are left, then acknowledged (unless not
    /// `acknowledged`).
    static func ledger(retryLimit: Int = 3, acknowledged: Bool = true, _ transfers: [[Transfer]]) throws -> JobLedger {
        var store = JobStore(configuration: JobStoreConfiguration(retryLimit: retryLimit))
        var time: JobTime = 0
        for (index, attempts) in transfers.enumerated() {
            time += 1
            let id = try store.performChanges(at: time) {
                _ = try $0.createJob(assetID: "/assets/photo-\(index + 1)", destination: destination)
            }[0].jobID
            for (number, transfer) in attempts.enumerated() {
                time += 1
                try store.performChanges(at: time) { block in
                    if number > 0 { try block.retry(id) }
                    try run(transfer, id, &block)
                }
            }
            guard acknowledged else { continue }
            time += 1
            try store.performChanges(at: time) { try $0.acknowledge(id) }
        }
        return store.ledger
    }

    private static func run(_ transfer: Transfer, _ id: JobID, _ block: inout JobChangeBlock) throws {
        try block.start(id)
        if let location = transfer.location { try block.record(.uploadResource(location: location), job: id) }
        for (number, range) in transfer.ranges.enumerated() {
            if number > 0, number - 1 < transfer.resumes.count {
                try block.record(.resumed(offset: transfer.resumes[number - 1]), job: id)
            }
            try block.record(.bytesSent(range), job: id)
        }
        if let (error, status) = transfer.failure {
            try block.fail(id, error: error, status: status)
        } else {
            let headers = transfer.resourceID.map { [HeaderField("X-Server-Resource-ID", $0)] } ?? []
            try block.succeed(id, status: 201, headers: headers)
        }
    }

    /// A whole asset of `size` bytes sent in one request, succeeding.
    static func clean(size: Int64 = 1000, resourceID: String? = nil) -> Transfer {
        Transfer(ranges: [ByteRange(offset: 0, length: size)], resourceID: resourceID)
    }

    /// A transcript builder: events on connections, timed 1 ms apart.
    struct TranscriptBuilder {
        var transcript = Transcript()
        private var tick = 0

        mutating func add(_ connection: Int, _ kind: TranscriptEvent.Kind) {
            tick += 1
            transcript.append(TranscriptEvent(time: .milliseconds(tick), connection: connection, kind: kind))
        }

        /// A request with its head, `body` bytes at `uploadOffset`, and a final response (none when `status` is
        /// nil: the connection was cut).
        mutating func exchange(
            _ connection: Int, _ number: Int, _ method: HTTPMethod, _ target: String, fields: HTTPFields = [:],
            body: Int64 = 0, uploadOffset: Int64? = nil, status: Int?, responseFields: HTTPFields = [:]
        ) {
            add(connection, .requestHead(exchange: number, RequestHead(method: method, target: target, fields: fields)))
            if body > 0 {
                add(connection, .requestBody(exchange: number, offset: 0, length: body, uploadOffset: uploadOffset))
            }
            if let status {
                add(connection, .finalResponse(exchange: number, ResponseHead(status: status, fields: responseFields)))
            }
        }

        mutating func fault(_ connection: Int, rule: String, action: String, offset: Int64?) {
            add(connection, .faultFired(FiredFault(rule: rule, action: action, direction: .upstream, offset: offset)))
        }
    }
}
