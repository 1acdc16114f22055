import Foundation
import Synchronization
import UploadClient
import UploadJobs

/// What `squall upload` shows while it runs: on a terminal, one line redrawn at most ten times a second (a bar of
/// the bytes sent over all files, files done, the file moving); otherwise plain lines when a file starts, passes
/// each quarter, is finalising and ends.
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
        var current = ""
    }

    private let console: Console
    private let total: Int64
    private let count: Int
    private let state: Mutex<State>

    /// `done` are the assets an earlier run (same journal) already finished: counted as sent and done.
    init(console: Console, assets: [UploadAsset], done: Set<String> = []) {
        self.console = console
        self.total = max(assets.reduce(0) { $0 + $1.size }, 1)
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
                state.current = name
            }
            plain("\(reconciling ? "resuming" : "sending") \(name) (\(size) bytes)")
        case .progress(let id, let sent, let size):
            let quarter = size > 0 ? Int(sent * 4 / size) : 4
            let (name, crossed) = state.withLock { state -> (String, Bool) in
                state.sent[id] = sent
                state.current = state.names[id] ?? ""
                let crossed = quarter > (state.quarters[id] ?? 0) && quarter < 4
                if crossed { state.quarters[id] = quarter }
                return (state.names[id] ?? "", crossed)
            }
            if crossed { plain("\(name): \(quarter * 25)%") }
            draw()
        case .finalising(let id):
            plain("\(state.withLock { $0.names[id] ?? "" }): all bytes sent, waiting for the server's response")
        case .transferEnded(let id, let jobState, let error, let status, let why):
            let name = state.withLock { state -> String in
                if jobState == .succeeded { state.finished += 1 }
                if jobState == .succeeded, let size = state.sizes[id] { state.sent[id] = size }
                return state.names[id] ?? ""
            }
            let detail = error.map { " (\($0.rawValue)\(status.map { ", status \($0)" } ?? ""))" } ?? ""
            plain("\(name): \(jobState.rawValue)\(detail)")
            draw(force: true)
            // Why a transfer failed, once per file and reason (a retried failure says the same again).
            if let why, jobState == .failed, state.withLock({ $0.explained.insert(name + why).inserted }) {
                console.printError("squall upload: \(name): \(why)")
            }
        case .serverDeviation(_, let rule, let line):
            // Each rule once: a server that deviates on every request would drown the progress otherwise.
            if state.withLock({ $0.deviations.insert(rule).inserted }) {
                console.printError("squall upload: the server deviates from the draft: \(line)")
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

    private func draw(force: Bool = false) {
        guard console.isTerminal else { return }
        let line = state.withLock { state -> String? in
            let now = ContinuousClock.now
            guard force || now - state.lastDraw >= .milliseconds(100) else { return nil }
            state.lastDraw = now
            let sent = state.sent.values.reduce(0, +)
            let filled = Int(min(sent, total) * 30 / total)
            let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: 30 - filled)
            let percent = Int(min(sent, total) * 100 / total)
            return "[\(bar)] \(percent)%  \(state.finished)/\(count) files  \(state.current)"
        }
        if let line { console.redraw(line) }
    }
}
