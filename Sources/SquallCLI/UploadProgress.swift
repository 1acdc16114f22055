import Foundation
import SquallCore
import Synchronization
import UploadClient
import UploadJobs

/// What `squall upload` shows while it runs: on a terminal, one line redrawn at most ten times a second for the
/// transfer that moved last (`TransferProgressLine`: bar, bytes, rate, time left, `finalising` between the last
/// byte and the server's final response, the files done); otherwise plain lines when a file starts, passes each
/// quarter, is finalising and ends. The rate is the bytes sent over the last two seconds of samples.
final class UploadProgress: Sendable {
    private struct State {
        var sent: [JobID: Int64] = [:]
        var sizes: [JobID: Int64] = [:]
        var names: [JobID: String] = [:]
        var quarters: [JobID: Int] = [:]
        /// The deviation rules already printed.
        var deviations: Set<String> = []
        /// The failure explanations already printed, per file.
        var explained: Set<String> = []
        var finished = 0
        var lastDraw = ContinuousClock.now - .seconds(1)
        /// The transfer that moved last, whose line is drawn.
        var current: JobID?
        var running: Set<JobID> = []
        var finalising: Set<JobID> = []
        /// Recent (time, bytes sent) samples per transfer, for its rate.
        var samples: [JobID: [(ContinuousClock.Instant, Int64)]] = [:]
        var ticks = 0
    }

    /// How far back the rate looks.
    static let rateWindow = Duration.seconds(2)

    private let console: Console
    private let count: Int
    private let state: Mutex<State>
    /// Put before the terminal line (`squall run`: which scenario).
    private let prefix: String
    /// Whether failures and server deviations are explained on stderr (`squall upload`; the scenario's own report
    /// judges them in `squall run`).
    private let explains: Bool

    /// `done` are the assets an earlier run (same journal) already finished: counted as sent and done. With no
    /// `assets` (not known in advance), the files are counted as their transfers start.
    init(console: Console, assets: [UploadAsset], done: Set<String> = [], prefix: String = "", explains: Bool = true) {
        self.console = console
        self.prefix = prefix
        self.explains = explains
        self.count = assets.count
        var state = State()
        for (index, asset) in assets.enumerated() where done.contains(asset.id) {
            state.sent[JobID(-1 - index)] = asset.size
            state.finished += 1
        }
        self.state = Mutex(state)
    }

    func handle(_ event: UploadSystemEvent) {
        switch event {
        case .transferStarted(let id, let asset, let size, let reconciling):
            let name = (asset as NSString).lastPathComponent
            state.withLock { state in
                state.sizes[id] = size
                state.names[id] = name
                state.sent[id] = 0
                state.quarters[id] = 0
                state.current = id
                state.running.insert(id)
                state.finalising.remove(id)
                state.samples[id] = [(.now, 0)]
            }
            plain("\(reconciling ? "resuming" : "sending") \(name) (\(size) bytes)")
        case .progress(let id, let sent, let size):
            let quarter = size > 0 ? Int(sent * 4 / size) : 4
            let (name, crossed) = state.withLock { state -> (String, Bool) in
                state.sent[id] = sent
                state.current = id
                let now = ContinuousClock.now
                var samples = state.samples[id] ?? []
                samples.append((now, sent))
                samples.removeAll { now - $0.0 > Self.rateWindow }
                state.samples[id] = samples
                let crossed = quarter > (state.quarters[id] ?? 0) && quarter < 4
                if crossed { state.quarters[id] = quarter }
                return (state.names[id] ?? "", crossed)
            }
            if crossed { plain("\(name): \(quarter * 25)%") }
            draw()
        case .finalising(let id):
            let name = state.withLock { state -> String in
                state.finalising.insert(id)
                state.current = id
                return state.names[id] ?? ""
            }
            plain("\(name): all bytes sent, waiting for the server's response")
            draw(force: true)
        case .transferEnded(let id, let jobState, let error, let status, let why):
            let name = state.withLock { state -> String in
                if jobState == .succeeded { state.finished += 1 }
                state.running.remove(id)
                state.finalising.remove(id)
                if jobState == .succeeded, let size = state.sizes[id] { state.sent[id] = size }
                return state.names[id] ?? ""
            }
            let detail = error.map { " (\($0.rawValue)\(status.map { ", status \($0)" } ?? ""))" } ?? ""
            plain("\(name): \(jobState.rawValue)\(detail)")
            draw(force: true)
            // Why a transfer failed, once per file and reason (a retried failure says the same again).
            if explains, let why, jobState == .failed, state.withLock({ $0.explained.insert(name + why).inserted }) {
                explain("squall upload: \(name): \(why)")
            }
        case .interrupted(let id, let at, let cause):
            let name = state.withLock { $0.names[id] ?? "" }
            announce(
                "\(name): \(Self.interruption(cause)) at \(ByteSize.short(at)) sent; asking the server how much it has"
            )
        case .resumed(let id, let from):
            let name = state.withLock { state -> String in
                state.samples[id] = [(.now, from)]
                state.sent[id] = from
                return state.names[id] ?? ""
            }
            announce("\(name): resumed from the server's \(ByteSize.short(from))")
        case .serverDeviation(_, let rule, let line):
            // Each rule once: a server that deviates on every request would drown the progress otherwise.
            if explains, state.withLock({ $0.deviations.insert(rule).inserted }) {
                explain("squall upload: the server deviates from the draft: \(line)")
            }
        case .uploadResourceAnnounced, .invocation, .settled, .jobCreated:
            break
        }
    }

    /// Ends the redrawn line.
    func finish() {
        if console.isTerminal { console.print("") }
    }

    private func plain(_ line: String) {
        if !console.isTerminal { console.print(line) }
    }

    /// A line that says what happened, in a pipe and on a terminal alike: on a terminal it goes above the redrawn
    /// line, which is drawn again below it.
    private func announce(_ line: String) {
        guard console.isTerminal else { return console.print(line) }
        console.redraw("")
        console.print(line)
        draw(force: true)
    }

    /// A line on stderr; on a terminal, which stdout's redrawn line shares, the line is cleared first and drawn
    /// again below, so that the two never run together.
    private func explain(_ line: String) {
        if console.isTerminal { console.redraw("") }
        console.printError(line)
        draw(force: true)
    }

    /// What interrupted a transfer, in words: `networkConnectionLost` is "the connection was lost".
    static func interruption(_ cause: TransferError.Code) -> String {
        switch cause {
        case .networkConnectionLost: "the connection was lost"
        case .timedOut: "no progress within the read timeout"
        case .cannotConnectToHost: "the server could not be reached"
        case .badServerResponse: "the server answered with an error"
        default: cause.rawValue
        }
    }

    private func draw(force: Bool = false) {
        guard console.isTerminal else { return }
        let color = console.usesColor
        let line = state.withLock { state -> String? in
            let now = ContinuousClock.now
            guard force || now - state.lastDraw >= .milliseconds(100) else { return nil }
            state.lastDraw = now
            state.ticks += 1
            guard let id = state.current else { return nil }
            var line = TransferProgressLine(
                name: state.names[id] ?? "", sent: state.sent[id] ?? 0, size: state.sizes[id],
                finalising: state.finalising.contains(id), filesDone: state.finished,
                files: max(count, state.names.count),
                others: state.running.subtracting([id]).count, tick: state.ticks)
            if let samples = state.samples[id], let first = samples.first, let last = samples.last,
                last.0 > first.0
            {
                let seconds =
                    Double((last.0 - first.0).components.attoseconds) / 1e18
                    + Double((last.0 - first.0).components.seconds)
                line.bytesPerSecond = Double(last.1 - first.1) / seconds
            }
            return prefix + line.text(color: color, width: console.columns.map { max(20, $0 - 1 - prefix.count) })
        }
        if let line { console.redraw(line) }
    }
}
