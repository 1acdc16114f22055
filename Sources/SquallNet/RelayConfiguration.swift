/// How a `Relay` buffers and when it gives up.
public struct RelayConfiguration: Sendable {
    /// Capacity of each direction's buffer in bytes; a direction stops reading while its buffer is full.
    /// Default 256 KiB (the spike's figure: large enough for loopback line rate, small enough for 1000
    /// connections).
    public var bufferSize: Int

    /// Ends the relay when no byte moves in either direction for this long; nil never does.
    /// Default 5 minutes.
    public var idleTimeout: Duration?

    /// Ends the relay this long after it started, whatever the traffic; nil never does. Default nil.
    public var timeLimit: Duration?

    public init(bufferSize: Int = 256 * 1024, idleTimeout: Duration? = .seconds(300), timeLimit: Duration? = nil) {
        precondition(bufferSize > 0, "a relay buffer needs room for at least one byte")
        self.bufferSize = bufferSize
        self.idleTimeout = idleTimeout
        self.timeLimit = timeLimit
    }
}
