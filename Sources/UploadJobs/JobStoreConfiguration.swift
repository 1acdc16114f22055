/// The limits the system enforces on the extension's jobs.
///
/// PhotoKit documents that both limits exist but not their values; the defaults are model choices.
public struct JobStoreConfiguration: Hashable, Sendable, Codable {
    /// The most jobs the store holds at once (see `JobStore` for exactly what holds a slot). Default 16.
    public var inFlightLimit: Int
    /// The most retries of one job; a job can be attempted `retryLimit + 1` times. Default 3.
    public var retryLimit: Int

    public init(inFlightLimit: Int = 16, retryLimit: Int = 3) {
        self.inFlightLimit = inFlightLimit
        self.retryLimit = retryLimit
    }
}
