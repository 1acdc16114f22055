import SquallCore

/// A duration flag in `DurationText`'s grammar (`us ms s m h d`), with the flag, the accepted units and the reason
/// named in the error.
enum DurationOption {
    static func parse(_ text: String, option: String, command: [String]) throws(UsageError) -> Duration {
        do {
            return try DurationText.parse(text)
        } catch {
            throw UsageError(
                "\(option) must be a duration such as 250ms, 2s or 1d, not '\(text)': \(error.reason)", command: command
            )
        }
    }

    /// Whole seconds, as the server's lifetimes are kept: a fraction of a second is dropped, and a duration under a
    /// second but above zero is 1 s (as scenario files' `max-age` and `token-ttl`).
    static func seconds(_ text: String, option: String, command: [String]) throws(UsageError) -> Int64 {
        let duration = try parse(text, option: option, command: command)
        let seconds = duration.components.seconds
        return duration > .zero ? max(1, seconds) : 0
    }
}
