import Dispatch
import Glibc
import Synchronization

/// One command's stop: what a first SIGINT or SIGTERM asks of it, what it holds that a stop must not leave behind
/// (temporary folders, child processes), and what it says about it.
///
/// ```
///  signal ─▶ StopSignalWatcher ─first──▶ request(signal): tracked children get SIGTERM, the registered actions run
///                               │        (the command's work returns early), waiters wake; the command then cleans
///                               │        up as on any return (TemporaryFolder.remove), the CLI prints `summary`'s
///                               │        one line and exits with 128 + the signal
///                               └second─▶ abandon(signal): tracked children get SIGKILL, one line names what is
///                                        left (the temporary folders), the process exits at once
/// ```
///
/// The work and its cleanup use the same paths as a normal return, so a stop loses nothing a normal end keeps:
/// journals and stores are closed by their owners. Only folders removed and children stopped after the request
/// are in the summary (a catalog run removes a folder per scenario long before). Tests call `request` themselves.
public final class ProcessStop: Sendable {
    /// An action, folder or child registered with the stop; `withdraw` takes it back.
    public struct Registration: Sendable, Hashable {
        fileprivate let id: Int
    }

    private struct Folder {
        var path: String
        var what: String
    }

    private struct Child {
        var pid: Int32
        var what: String
        var isRunning: @Sendable () -> Bool

        var description: String { "child \(what) pid \(pid)" }
    }

    private struct State {
        var next = 0
        var actions: [Int: @Sendable () -> Void] = [:]
        var folders: [Int: Folder] = [:]
        var children: [Int: Child] = [:]
        var summary = StopSummary()

        /// A fresh registration id.
        mutating func take() -> Int {
            defer { next += 1 }
            return next
        }
    }

    /// The command, as the line of a second signal names it (`squall run`).
    public let command: String
    private let state = Mutex(State())
    private let requested = DispatchSemaphore(value: 0)

    public init(command: String) {
        self.command = command
    }

    /// The signal that asked for the stop; nil while none has.
    public var signal: StopSignal? { state.withLock { $0.summary.signal } }

    /// Whether a stop was asked for.
    public var isRequested: Bool { signal != nil }

    /// What was stopped, removed and kept so far.
    public var summary: StopSummary { state.withLock { $0.summary } }

    /// Asks the command to stop: every tracked child still running gets SIGTERM, then every registered action runs
    /// (on the calling thread: actions must not block), then `waitUntilRequested` returns. Only the first call
    /// does anything.
    public func request(_ signal: StopSignal) {
        let work = state.withLock { state -> ([@Sendable () -> Void], [Child])? in
            guard state.summary.signal == nil else { return nil }
            state.summary.signal = signal
            let actions = state.actions.sorted { $0.key < $1.key }.map(\.value)
            state.actions = [:]
            return (actions, Array(state.children.values))
        }
        guard let (actions, children) = work else { return }
        let running = children.filter { $0.isRunning() }.sorted { $0.pid < $1.pid }
        for child in running { kill(child.pid, SIGTERM) }
        state.withLock { $0.summary.children += running.map(\.description) }
        for action in actions { action() }
        requested.signal()
    }

    /// Runs `action` when the stop is asked for (at once when it already was); it must not block.
    @discardableResult
    public func whenRequested(_ action: @escaping @Sendable () -> Void) -> Registration {
        let registration = state.withLock { state -> Registration? in
            guard state.summary.signal == nil else { return nil }
            let id = state.take()
            state.actions[id] = action
            return Registration(id: id)
        }
        guard let registration else {
            action()
            return Registration(id: -1)
        }
        return registration
    }

    /// Blocks until the stop is asked for.
    public func waitUntilRequested() {
        requested.wait()
        requested.signal()
    }

    /// Tracks a child process: SIGTERM on the stop (at once if it was already asked for), SIGKILL on a second
    /// signal, each only while `isRunning` says it runs. `what` names it in the line (`squall server`).
    public func track(child pid: Int32, what: String, isRunning: @escaping @Sendable () -> Bool) -> Registration {
        let child = Child(pid: pid, what: what, isRunning: isRunning)
        let (id, stopping) = state.withLock { state in
            let id = state.take()
            state.children[id] = child
            return (id, state.summary.signal != nil)
        }
        if stopping, isRunning() {
            kill(pid, SIGTERM)
            state.withLock { $0.summary.children.append(child.description) }
        }
        return Registration(id: id)
    }

    /// Takes back an action, a folder or a child (one that ended).
    public func withdraw(_ registration: Registration) {
        state.withLock { state in
            state.actions[registration.id] = nil
            state.folders[registration.id] = nil
            state.children[registration.id] = nil
        }
    }

    /// Says what the stop ended (`the server at http://127.0.0.1:8080`), for the line.
    public func noteStopped(_ what: String) {
        state.withLock { $0.summary.stopped.append(what) }
    }

    /// Says what the stop kept on purpose (`the store /srv/uploads`, a partial report), for the line.
    public func noteKept(_ what: String) {
        state.withLock { $0.summary.kept.append(what) }
    }

    /// A temporary folder to name in the line: removed after the stop, or left by a second signal.
    func track(folder path: String, what: String) -> Registration {
        state.withLock { state in
            let id = state.take()
            state.folders[id] = Folder(path: path, what: what)
            return Registration(id: id)
        }
    }

    /// The folder was removed; the line names it when a stop was asked for.
    func folderRemoved(_ registration: Registration) {
        state.withLock { state in
            guard let folder = state.folders.removeValue(forKey: registration.id) else { return }
            if state.summary.signal != nil { state.summary.removed.append("\(folder.path) (\(folder.what))") }
        }
    }

    /// A second signal: the stop already under way takes too long. Every tracked child still running gets SIGKILL,
    /// one line on stderr says what was killed and which folders are left, and the process exits at once with
    /// 128 + `signal`.
    func abandon(_ signal: StopSignal) -> Never {
        let (children, folders) = state.withLock { state in
            (state.children.values.sorted { $0.pid < $1.pid }, state.folders.sorted { $0.key < $1.key }.map(\.value))
        }
        let running = children.filter { $0.isRunning() }
        for child in running { kill(child.pid, SIGKILL) }
        var parts = ["second signal (\(signal.name)): exited at once"]
        if !running.isEmpty { parts.append("killed " + running.map(\.description).joined(separator: ", ")) }
        parts.append(
            folders.isEmpty
                ? "left no temporary folder"
                : "left " + folders.map { "\($0.path) (\($0.what))" }.joined(separator: ", "))
        var line = Array((command + ": " + parts.joined(separator: "; ") + "\n").utf8)
        var offset = 0
        while offset < line.count {
            let written = line.withUnsafeMutableBytes {
                write(STDERR_FILENO, $0.baseAddress! + offset, $0.count - offset)
            }
            if written <= 0 { break }
            offset += written
        }
        _exit(signal.exitStatus)
    }
}

/// What a stop did, as one line on stderr: `squall server: SIGTERM: stopped the server at http://127.0.0.1:8080;
/// removed /tmp/squall-store-Ab12Cd (temporary store)`.
public struct StopSummary: Sendable, Hashable {
    /// The signal that asked for the stop.
    public var signal: StopSignal?
    /// What the command ended (its own notes).
    public var stopped: [String] = []
    /// The tracked children that got SIGTERM.
    public var children: [String] = []
    /// The temporary folders removed after the stop.
    public var removed: [String] = []
    /// What was kept on purpose: folders the user named, bundles, partial reports.
    public var kept: [String] = []

    public init() {}

    /// `COMMAND: SIGNAL: stopped …; removed …; kept …` (a part without items is left out; `nothing was running`,
    /// `nothing to remove` when both lists are empty).
    public func line(command: String) -> String {
        var parts: [String] = []
        let ended = stopped + children
        parts.append(ended.isEmpty ? "nothing was running" : "stopped " + ended.joined(separator: ", "))
        if !removed.isEmpty { parts.append("removed " + removed.joined(separator: ", ")) }
        if !kept.isEmpty { parts.append("kept " + kept.joined(separator: ", ")) }
        if removed.isEmpty, kept.isEmpty { parts.append("nothing to remove") }
        return "\(command): \(signal?.name ?? "stop"): " + parts.joined(separator: "; ")
    }
}
