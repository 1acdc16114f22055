import Glibc

/// Process-wide set-up every Squall binary runs first.
public enum ProcessSetup {
    /// Ignores SIGPIPE, so a write to a closed peer returns EPIPE instead of killing the process
    /// (OpenSSL's socket BIO uses write(2), which cannot pass MSG_NOSIGNAL).
    public static func ignoreBrokenPipe() {
        signal(SIGPIPE, SIG_IGN)
    }
}
