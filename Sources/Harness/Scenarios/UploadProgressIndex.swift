import ProxyTranscript
import ResumableUpload
import Scenario
import Synchronization

/// How far each upload request got, read from the transcript as it grows (each event once), for the events a
/// scenario triggers by upload progress (`at-progress`, optionally for one asset).
final class UploadProgressIndex: Sendable {
    /// One request that carries upload bytes.
    private struct Exchange {
        var filename: String?
        /// The upload's whole length when the request says, as `UploadRequestFacts` reads it (`Upload-Length` in
        /// the request's interop version, or its start plus `Content-Length` when the request completes the upload).
        var uploadLength: Int64?
        /// The furthest upload offset its body reached.
        var reached: Int64 = 0
        /// The path of the upload resource the client was told of in it (a creation's 104 written to the client, as
        /// the proxy's `client_announcement` says), if it was.
        var announced: String?
        /// The highest offset the server's 104s reported for it (bytes it stored).
        var acknowledged: Int64 = 0
        /// Its interop version, when it announced a known one.
        var version: InteropVersion?
    }

    /// Where a hold fired: the upload resource the client had been told of in that request (nil: none), when, on
    /// which connection and exchange, at which upload offset, and the request's interop version.
    struct Firing: Sendable {
        var announced: String?
        var time: Duration
        var connection: Int
        var exchange: Int?
        var offset: Int64?
        var version: InteropVersion?
    }

    private struct State {
        var position = 0
        var exchanges: [Int: Exchange] = [:]
        /// Each connection's latest exchange.
        var latest: [Int: Int] = [:]
        /// The rules that fired, by name (for the holds the run places at progress events), with where.
        var fired: [String: Firing] = [:]
        /// The connections whose close the transcript recorded.
        var closed: Set<Int> = []
    }

    private let state = Mutex(State())

    /// Whether an upload of the event's asset (any asset without one) crossed the event's position, in `transcript`
    /// so far; for an event with a `hold` (the proxy's rule placed at that position), whether that rule fired: the
    /// bytes reach the position while the hold still waits for the creation's announcement (`Announcement`).
    func reached(_ event: ScenarioEvent, hold: String? = nil, in transcript: Transcript) -> Bool {
        guard case .progress(let position, let asset, _) = event.trigger else { return false }
        return state.withLock { state in
            Self.read(transcript, into: &state)
            if let hold { return state.fired[hold] != nil }
            return state.exchanges.values.contains { exchange in
                // A request of no length (a token request's empty POST) is no upload's progress.
                guard exchange.uploadLength != 0, asset.map({ exchange.filename == $0 }) ?? true,
                    let target = position.offset(uploadLength: exchange.uploadLength)
                else { return false }
                return exchange.reached >= target
            }
        }
    }

    /// How far the furthest upload of `asset` (any asset when nil) got in `transcript` so far, for an event that
    /// never played: `the upload never got past 41 %`, or that no upload of it was seen.
    func furthest(of asset: String?, in transcript: Transcript) -> String {
        state.withLock { state in
            Self.read(transcript, into: &state)
            let uploads = state.exchanges.values.filter { exchange in asset.map { exchange.filename == $0 } ?? true }
            guard let furthest = uploads.map(\.reached).max() else {
                return asset.map { "no upload of \($0) was seen" } ?? "no upload was seen"
            }
            guard let longest = uploads.compactMap(\.uploadLength).max(), longest > 0 else {
                return "the upload never got past byte \(furthest), and its length was never told"
            }
            // The request that got furthest through its upload (one whose length is untold counts against the
            // longest told): its percentage, bytes and length, all of the same request.
            let progress = uploads.map { (reached: $0.reached, length: max(1, $0.uploadLength ?? longest)) }
            let best = progress.max { $0.reached * 100 / $0.length < $1.reached * 100 / $1.length }!
            let percent = best.reached * 100 / best.length
            return "the upload never got past \(percent) % (byte \(best.reached) of \(best.length))"
        }
    }

    /// Where the proxy's rule `hold` fired, once it did: the upload resource the request's 104 announced to the
    /// client by then, and the time (the transcript's clock).
    func firing(of hold: String, in transcript: Transcript) -> Firing? {
        state.withLock { state in
            Self.read(transcript, into: &state)
            return state.fired[hold]
        }
    }

    /// The highest offset the server reported (in a 104) for the request a hold fired in, in `transcript` so far.
    func acknowledged(after firing: Firing, in transcript: Transcript) -> Int64 {
        state.withLock { state in
            Self.read(transcript, into: &state)
            guard let exchange = firing.exchange else { return 0 }
            return state.exchanges[firing.connection << 20 | exchange]?.acknowledged ?? 0
        }
    }

    /// Whether `connection`'s close is in `transcript` so far.
    func hasClosed(_ connection: Int, in transcript: Transcript) -> Bool {
        state.withLock { state in
            Self.read(transcript, into: &state)
            return state.closed.contains(connection)
        }
    }

    /// Takes in the events appended since the last call.
    private static func read(_ transcript: Transcript, into state: inout State) {
        for item in transcript.events(since: state.position) {
            switch item.kind {
            case .requestHead(let exchange, let head):
                state.latest[item.connection] = exchange
                let facts = UploadRequestFacts(head)
                state.exchanges[item.connection << 20 | exchange] = Exchange(
                    filename: head.fields["X-Filename"], uploadLength: facts.length, version: facts.version)
            case .closed:
                state.closed.insert(item.connection)
            case .interimResponse(let exchange, let head) where head.status == 104:
                let facts = UploadResponseFacts(head, requestVersion: nil)
                let key = item.connection << 20 | exchange
                if let offset = facts.offset, let known = state.exchanges[key]?.acknowledged {
                    state.exchanges[key]?.acknowledged = max(known, offset)
                }
            case .clientAnnouncement(let exchange, let location, .written):
                state.exchanges[item.connection << 20 | exchange]?.announced = location
            case .requestBody(let exchange, _, let length, let upload?):
                let key = item.connection << 20 | exchange
                if var known = state.exchanges[key] {
                    known.reached = max(known.reached, upload + length)
                    state.exchanges[key] = known
                }
            case .faultFired(let fault):
                let number = state.latest[item.connection]
                let exchange = number.flatMap { state.exchanges[item.connection << 20 | $0] }
                if state.fired[fault.rule] == nil {
                    state.fired[fault.rule] = Firing(
                        announced: exchange?.announced, time: item.time, connection: item.connection,
                        exchange: number, offset: fault.offset, version: exchange?.version)
                }

            default:
                continue
            }
        }
        state.position = transcript.appendedCount
    }
}
