/// A fault that fired: the action for the driver to execute, where to apply it, and what the transcript records
/// (rule, connection, offset, time).
///
/// For a trigger inside a body (`at-offset`, `after-response-bytes`, `truncate-response`), `afterBytes` says to
/// forward exactly that many bytes of the chunk and then apply the action (0: before any of it; the chunk's
/// count: after all of it). Otherwise it is nil and the action applies at the event, before it is forwarded: a `respond` answers instead of forwarding the request,
/// `strip-interim` drops the interim head, `drop-response` cuts instead of forwarding the final head.
public struct FaultDecision: Sendable, Hashable {
    /// The rule's name.
    public var rule: String
    public var connection: Int
    public var action: FaultAction
    public var direction: FaultDirection
    public var afterBytes: Int?
    /// Where it fired: the upload's absolute offset for `at-offset`, the response body byte count for
    /// `after-response-bytes` and `truncate-response`; nil otherwise.
    public var offset: Int64?
    public var time: Duration
    /// For a rule with a `window` trigger, the window's end: an ongoing effect (latency, bandwidth, stall, …)
    /// stops there.
    public var expires: Duration?
    /// For an action that interrupts the request (`FaultAction.interruptsUpload`) fired by an `at-offset` trigger:
    /// what it does on a creation the client cannot resume yet. Nil otherwise.
    public var announcement: Announcement?

    public init(
        rule: String, connection: Int, action: FaultAction, direction: FaultDirection, afterBytes: Int? = nil,
        offset: Int64? = nil, time: Duration, expires: Duration? = nil, announcement: Announcement? = nil
    ) {
        self.rule = rule
        self.connection = connection
        self.action = action
        self.direction = direction
        self.afterBytes = afterBytes
        self.offset = offset
        self.time = time
        self.expires = expires
        self.announcement = announcement
    }
}
