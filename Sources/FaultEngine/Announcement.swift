import SquallCore

/// What a cut or hold at an upload offset does when it falls on a creation whose upload the client cannot resume
/// yet: until the server's 104 announcing the upload (its `Location`) has reached the client, a client that loses
/// the request can only start over. On loopback a client pushes megabytes into socket buffers before any 104 can
/// come back, where a phone on a real link has sent a few KiB, so a cut "at 30 %" would otherwise test what a
/// phone never meets, and flip with the machine's speed.
///
/// Scenario JSON, beside `at-offset` in a trigger (and beside `at-progress` in an event):
/// `{"at-offset": "30%"}` waits up to 2 s (the default); `{"at-offset": "30%", "announcement-wait": "5s"}` waits up
/// to 5 s; `{"at-offset": "30%", "announcement": "before"}` cuts before the client has the announcement, on
/// purpose. It matters only for a creation that asks for resumability at an interop version the server serves;
/// elsewhere (appends, plain uploads) the fault fires at its offset as it is. Shaping effects at an offset
/// (`latency`, `bandwidth`, `slice`, `slow-close`) never wait: they interrupt nothing.
public enum Announcement: Sendable, Hashable {
    /// Hold the upload at the position (the bytes before it forwarded, the client's later bytes not read) until
    /// the proxy has written the request's 104 with `Location` to the client, then fire; after `within`, fire
    /// anyway (the transcript says that the 104 never reached the client). The final response ends the wait too.
    case awaited(within: Duration)
    /// Fire at the position, and keep the request's 104s from the client until it has fired: the cut lands
    /// before the client could learn the upload, however fast the server answers.
    case before

    /// How long a cut waits for the announcement unless the scenario says otherwise.
    public static let defaultWait: Duration = .seconds(2)
    /// The default: wait up to `defaultWait`.
    public static let `default` = Announcement.awaited(within: defaultWait)
    /// The keys that carry it beside `at-offset` or `at-progress`.
    public static let keys = ["announcement", "announcement-wait"]

    /// The announcement `reader`'s `announcement` and `announcement-wait` keys say (the default when neither is
    /// there). `"announcement"` is `"wait"` (the default) or `"before"`; `"announcement-wait"` a duration, only with
    /// `"wait"`.
    public static func read(_ reader: JSONFieldReader) throws -> Announcement {
        let mode = try reader.string("announcement") ?? "wait"
        let within = try reader.duration("announcement-wait")
        switch mode {
        case "wait":
            return .awaited(within: within ?? defaultWait)
        case "before":
            guard within == nil else {
                throw FaultError(
                    .notApplicable, path: reader.path("announcement-wait"),
                    "\"announcement\": \"before\" fires without waiting; drop announcement-wait or use \"wait\"")
            }
            return .before
        default:
            throw FaultError(
                .invalidValue, path: reader.path("announcement"),
                "expected \"wait\" (for the client to have the server's 104, the default) or \"before\", not "
                    + "\"\(mode)\"")
        }
    }

    /// Writes the keys `read` reads, leaving the default out.
    func encode(into writer: inout KeyWriter) throws {
        switch self {
        case .awaited(let within) where within == Self.defaultWait: return
        case .awaited(let within): try writer.duration("announcement-wait", within)
        case .before: try writer.string("announcement", "before")
        }
    }

    /// `"waits up to 2s"`, `"before the announcement"`: for messages.
    public var text: String {
        switch self {
        case .awaited(let within): "waits up to \(DurationText.format(within) ?? "\(within)") for the announcement"
        case .before: "before the announcement"
        }
    }
}
