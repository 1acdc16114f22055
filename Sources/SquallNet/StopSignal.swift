import Glibc

/// A signal that asks a command to stop: SIGINT (Ctrl-C in a terminal) or SIGTERM (`kill`, a CI runner cancelling
/// a job). A command stopped by one exits with `exitStatus`, as a shell reports a process the signal ended.
public enum StopSignal: Sendable, Hashable, CaseIterable {
    case interrupt
    case terminate

    /// The stop signal numbered `number`, nil for any other signal.
    public init?(number: Int32) {
        switch number {
        case SIGINT: self = .interrupt
        case SIGTERM: self = .terminate
        default: return nil
        }
    }

    /// The signal's number: `SIGINT` or `SIGTERM`.
    public var number: Int32 {
        switch self {
        case .interrupt: SIGINT
        case .terminate: SIGTERM
        }
    }

    /// `SIGINT` or `SIGTERM`.
    public var name: String {
        switch self {
        case .interrupt: "SIGINT"
        case .terminate: "SIGTERM"
        }
    }

    /// 128 + the signal's number: 130 for SIGINT, 143 for SIGTERM.
    public var exitStatus: Int32 { 128 + number }

    /// Both signals, as a set for `pthread_sigmask` and `sigtimedwait`.
    static var set: sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in allCases { sigaddset(&set, signal.number) }
        return set
    }
}
