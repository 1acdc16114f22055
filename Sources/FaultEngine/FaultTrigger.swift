/// When a matched fault fires (DESIGN.md "Faults").
///
/// Scenario JSON: `"on-match"` (also the default when `trigger` is absent), `{"after": "2s"}`,
/// `{"at-offset": "40%"}` or `{"at-offset": "3MiB"}` or `{"at-offset": 3145728}` (with `announcement` or
/// `announcement-wait` beside it: see `Announcement`), `{"after-response-bytes": "1KiB"}`,
/// `{"window": {"from": "2s", "until": "5s"}}`.
public enum FaultTrigger: Sendable, Hashable {
    /// As soon as the match happens (at the connection's open or at the request head).
    case onMatch
    /// This long after the match: on the first event or tick of the connection at or past that time.
    case after(Duration)
    /// When the upload's absolute offset crosses the position inside a request body: the action applies after
    /// exactly the bytes before the position have been forwarded, whatever the chunking; on a creation the client
    /// cannot resume yet, as `announcement` says.
    case atOffset(UploadPosition, announcement: Announcement = .default)
    /// When the response body (of the matched request) crosses this many bytes.
    case afterResponseBytes(Int64)
    /// On matches whose time lies in `from..<until` (time since the engine's start); an ongoing effect armed
    /// inside the window carries `until` as its expiry.
    case window(from: Duration, until: Duration)

    /// The trigger's name in scenario files.
    public var name: String {
        switch self {
        case .onMatch: "on-match"
        case .after: "after"
        case .atOffset: "at-offset"
        case .afterResponseBytes: "after-response-bytes"
        case .window: "window"
        }
    }
}
