import Glibc

/// SIGINT and SIGTERM as a message rather than a kill: `init` blocks both in the calling thread, so that every
/// thread started after it inherits the mask, and `wait()` returns when one arrives.
///
/// Create it on the main thread before any connection thread, as `squall server` does.
struct ProxySignals {
    private var set = sigset_t()

    init() {
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Waits until SIGINT or SIGTERM arrives.
    func wait() {
        var blocked = set
        var received: Int32 = 0
        sigwait(&blocked, &received)
    }
}
