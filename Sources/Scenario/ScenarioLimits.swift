/// The most a scenario file may ask for, so that a slip (`"1000GiB"`, a count of 10,000 on a 200 MiB asset) or a
/// runaway generator is an error naming its place instead of a run that fills the disk or holds CI for hours.
/// `ScenarioLoader` checks them after reading a file; `squall run` and `squall validate` raise each with its flag.
///
/// | limit | default | flag |
/// |---|---|---|
/// | `assetSize`: one asset's `size` (assets and `add-assets` events) | 1 GiB | `--max-asset-size` |
/// | `totalSize`: every asset file's bytes, added ones included | 2 GiB | `--max-total-size` |
/// | `assetCount`: asset files (counts summed, added ones included) | 1,000 | `--max-assets` |
/// | `faults`: entries of `faults` | 100 | `--max-faults` |
/// | `events`: entries of `events` | 100 | `--max-events` |
/// | `timeout`: the scenario's `timeout` | 10 min | `--max-timeout` |
public struct ScenarioLimits: Sendable, Hashable {
    /// One limit: its flag names it in messages and on the command line.
    public enum Limit: String, Sendable, CaseIterable {
        case assetSize = "--max-asset-size"
        case totalSize = "--max-total-size"
        case assetCount = "--max-assets"
        case faults = "--max-faults"
        case events = "--max-events"
        case timeout = "--max-timeout"

        /// The flag of `squall run` and `squall validate` that raises it.
        public var flag: String { rawValue }
    }

    /// The largest asset, in bytes. Default 1 GiB.
    public var assetSize: Int64 = 1 << 30
    /// The bytes of every asset file of a scenario (each asset's size × count, `add-assets` events' included).
    /// Default 2 GiB.
    public var totalSize: Int64 = 2 << 30
    /// Asset files per scenario (`add-assets` events' included). Default 1,000.
    public var assetCount = 1000
    /// Faults per scenario. Default 100.
    public var faults = 100
    /// Events per scenario. Default 100.
    public var events = 100
    /// The longest `timeout`. Default 10 minutes.
    public var timeout: Duration = .seconds(600)

    public init() {}
}
