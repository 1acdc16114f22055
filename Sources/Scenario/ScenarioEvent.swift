import FaultEngine
import SquallCore

/// Something that happens to the world during a run (DESIGN.md "Events"), and when.
///
/// JSON: `{"event": "kill-client", "at": "2s"}` or `{"event": "switch-network", "at-progress": "40%",
/// "asset": "photo"}`; `add-assets` also takes `name`, `size`, `count`.
public struct ScenarioEvent: Sendable, Hashable {
    public var action: EventAction
    public var trigger: EventTrigger

    public init(action: EventAction, trigger: EventTrigger) {
        self.action = action
        self.trigger = trigger
    }
}

/// The events' vocabulary; `name` is the JSON spelling.
public enum EventAction: Sendable, Hashable {
    /// `willTerminate`, then the client stops (a later `relaunch-client` restarts it from its journal).
    case terminateClient
    /// Restarts a terminated, killed or force-quit client from its journal.
    case relaunchClient
    /// SIGKILL to the client process, no warning.
    case killClient
    /// The user kills the app: the extension stops without `willTerminate`; its transfers go on in the system.
    case forceQuit
    /// New connections are refused and live ones reset, until `network-up`.
    case networkDown
    case networkUp
    /// Every live connection reset at once (Wi-Fi to cellular).
    case switchNetwork
    /// SIGKILL to the server process, then a restart from its store on the same port.
    case restartServer
    /// Every token issued so far expires.
    case expireTokens
    case disableExtension
    case enableExtension
    /// New assets appear in the library.
    case addAssets(AssetSpec)
    /// The library's persistent change token expires.
    case expireChangeToken

    /// The JSON spelling.
    public var name: String {
        switch self {
        case .terminateClient: "terminate-client"
        case .relaunchClient: "relaunch-client"
        case .killClient: "kill-client"
        case .forceQuit: "force-quit"
        case .networkDown: "network-down"
        case .networkUp: "network-up"
        case .switchNetwork: "switch-network"
        case .restartServer: "restart-server"
        case .expireTokens: "expire-tokens"
        case .disableExtension: "disable-extension"
        case .enableExtension: "enable-extension"
        case .addAssets: "add-assets"
        case .expireChangeToken: "expire-change-token"
        }
    }

    /// Every event name, for messages and the schema.
    public static let names = [
        "terminate-client", "relaunch-client", "kill-client", "force-quit", "network-down", "network-up",
        "switch-network", "restart-server", "expire-tokens", "disable-extension", "enable-extension", "add-assets",
        "expire-change-token",
    ]

    /// Whether the event needs the client in a child process (a real kill).
    public var killsClient: Bool { self == .killClient || self == .forceQuit }
    /// Whether the event stops the client's session (it resumes only what its journal holds when relaunched).
    public var stopsClient: Bool { killsClient || self == .terminateClient }
    /// Whether the event needs the server in a child process (a real kill).
    public var killsServer: Bool { self == .restartServer }
}

/// When an event happens.
public enum EventTrigger: Sendable, Hashable {
    /// This long after the run started (`"at": "2s"`).
    case time(Duration)
    /// When the proxy sees an upload's absolute offset cross `position` (`"at-progress": "40%"` or a size),
    /// for the asset named `asset` (nil: any asset); on a creation the client cannot resume yet, as `announcement`
    /// says (`"announcement"`, `"announcement-wait"`: the hold at the position waits for the server's 104, or not).
    case progress(UploadPosition, asset: String?, announcement: Announcement = .default)
    /// Inside the client's invocation, when the change block that created its `count`-th job of the run commits
    /// (`"at-jobs-created": 2`): the extension is told `willTerminate()` before its `performChanges` returns, so
    /// the event lands while `processJobs()` runs. Only for `terminate-client`, with the client in-process.
    case jobsCreated(Int)
}

extension EventTrigger {
    /// As a scenario file says it: `at 100ms`, `at-progress 70% of video`, `at-progress 1MiB`.
    public var text: String {
        switch self {
        case .time(let delay):
            return "at " + (DurationText.format(delay) ?? "\(delay)")
        case .progress(let position, let asset, let announcement):
            let place =
                switch position {
                case .bytes(let bytes): "\(bytes) bytes"
                case .fraction(let numerator, let denominator):
                    UploadPosition.percentText(numerator: numerator, denominator: denominator)
                }
            let before = announcement == .before ? " before the announcement" : ""
            return "at-progress \(place)" + (asset.map { " of \($0)" } ?? "") + before
        case .jobsCreated(let count):
            return "at-jobs-created \(count)"
        }
    }
}
