import Glibc
import Synchronization

/// One run of a command without a shell (`posix_spawnp`, the program found on `PATH`): its exit status and what
/// it printed, bounded in time. Past `timeout` it gets SIGTERM, and SIGKILL a second later. A program that leaves
/// a process behind holding its output (a daemon it started without redirecting it) does not hold the run: once
/// the program exited, output that does not come within `drainGrace` is not waited for. With a `ProcessStop`, the
/// program is one of the command's children: SIGINT or SIGTERM to the command sends it SIGTERM (a second one
/// SIGKILL) and names it in the stop's line.
public struct CommandRun: Sendable {
    /// The exit status, or 128 + the signal that ended it; -1 when it could not be started.
    public var status: Int32
    public var output: String
    public var errors: String

    /// How long output is still read after the program exited.
    public static let drainGrace = Duration.milliseconds(500)

    public init(_ arguments: [String], timeout: Duration, stop: ProcessStop? = nil) throws(NetError) {
        precondition(!arguments.isEmpty, "a command needs a program")
        var out: [Int32] = [-1, -1]
        var err: [Int32] = [-1, -1]
        guard pipe(&out) == 0, pipe(&err) == 0 else { throw NetError.system(.spawn, "pipe") }
        for descriptor in [out[0], err[0]] { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
        for descriptor in [out[0], err[0]] { _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, out[1], 1)
        posix_spawn_file_actions_adddup2(&actions, err[1], 2)
        for descriptor in [out[0], out[1], err[0], err[1]] { posix_spawn_file_actions_addclose(&actions, descriptor) }
        // The child starts with no signal blocked and the usual dispositions, whatever this process set for its
        // own threads (squall ignores SIGPIPE and blocks SIGINT and SIGTERM where it takes them itself).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let spawned = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, environ)
        close(out[1])
        close(err[1])
        defer {
            close(out[0])
            close(err[0])
        }
        guard spawned == 0 else {
            throw NetError.system(.spawn, "cannot run \(arguments[0])", errno: spawned)
        }
        let running = Running()
        let registration = stop?.track(child: pid, what: "command \(arguments[0])") { running.value }
        var collected: ([UInt8], [UInt8]) = ([], [])
        status = Self.wait(pid, reading: (out[0], err[0]), into: &collected, timeout: timeout) {
            // Before the reap: once reaped, the pid may belong to another process that a stop must not signal.
            running.value = false
            if let stop, let registration { stop.withdraw(registration) }
        }
        output = String(decoding: collected.0, as: UTF8.self)
        errors = String(decoding: collected.1, as: UTF8.self)
    }

    /// Reads both pipes until the program exited and its output ended (or `drainGrace` passed), terminating it
    /// past `timeout`; calls `exiting` once it exited and before it is reaped; returns its status.
    private static func wait(
        _ pid: pid_t, reading pipes: (Int32, Int32), into collected: inout ([UInt8], [UInt8]), timeout: Duration,
        exiting: () -> Void
    ) -> Int32 {
        let start = ContinuousClock.now
        var exitStatus: Int32?
        var exitedAt: ContinuousClock.Instant?
        var open = (pipes.0 >= 0, pipes.1 >= 0)
        var signalled = 0
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            if exitStatus == nil {
                var info = siginfo_t()
                var raw: Int32 = 0
                if waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0,
                    info._sifields._sigchld.si_pid == pid
                {
                    exiting()
                    _ = waitpid(pid, &raw, 0)
                    exitStatus = (raw & 0x7f) == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
                    exitedAt = .now
                }
            }
            if let exitedAt, (!open.0 && !open.1) || ContinuousClock.now - exitedAt > drainGrace {
                return exitStatus ?? -1
            }
            let elapsed = ContinuousClock.now - start
            if exitStatus == nil, elapsed > timeout + .seconds(signalled) {
                kill(pid, signalled == 0 ? SIGTERM : SIGKILL)
                signalled += 1
            }
            var entries = [
                pollfd(fd: open.0 ? pipes.0 : -1, events: Int16(POLLIN), revents: 0),
                pollfd(fd: open.1 ? pipes.1 : -1, events: Int16(POLLIN), revents: 0),
            ]
            _ = poll(&entries, 2, 20)
            for (index, entry) in entries.enumerated() where entry.fd >= 0 && entry.revents != 0 {
                let count = buffer.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    if index == 0 { collected.0 += buffer[..<count] } else { collected.1 += buffer[..<count] }
                } else if count == 0 || (errno != EAGAIN && errno != EINTR) {
                    if index == 0 { open.0 = false } else { open.1 = false }
                }
            }
        }
    }
}

/// Whether a command's program still runs, as its stop's tracking asks from another thread.
private final class Running: Sendable {
    private let flag = Atomic<Bool>(true)

    var value: Bool {
        get { flag.load(ordering: .acquiring) }
        set { flag.store(newValue, ordering: .releasing) }
    }
}
