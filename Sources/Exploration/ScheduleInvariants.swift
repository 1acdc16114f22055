import SquallCore

/// The invariants `squall explore` judges, as the `expect` of a schedule: what must hold whatever the faults and
/// events, each an expectation of the scenario vocabulary (so a shrunk schedule is an ordinary scenario file).
///
/// | invariant | expectation | applies |
/// |---|---|---|
/// | every job acknowledged at most once | `acknowledged-at-most-once` | always |
/// | the retry limit respected | `retry-limit-respected` | always |
/// | no job lost: each asset is on the server intact, or its job failed with a recorded error, or it is still held (by a job, or queued in an extension whose last invocation did not complete); no complete upload on the server matches no asset (corruption) | `no-job-lost` | always (the server's side with its state only) |
/// | no acknowledged byte lost: an upload's offset the server acknowledged (a 104, a HEAD, a final response) never goes down in a later answer, and the upload is not answered 404 or 410 later | `acknowledged-bytes-kept` | with an interop version (a plain upload acknowledges nothing before its end) |
/// | every append at the offset the server reported | `appends-at-server-offset` | with an interop version |
/// | no avoidable duplicate: no asset with two complete copies on the server whose `Location`s the client both knew | `no-avoidable-duplicates` | with an interop version (the server's state needed) |
/// | the run ends before its timeout | the `timeout` verdict | always |
///
/// A second copy is legitimate when the client never learned of the first: a stripped 104, or a cut that lands
/// after the server has the whole body but before the 104 or the final response reached the client (plain uploads
/// have no `Location` at all). The client cannot reconcile an upload it never heard of; it can one whose
/// `Location` it recorded, so that second copy is a violation. Pure.
public enum ScheduleInvariants {
    /// The verdict keys that are invariants: the ones a violation is made of.
    public static let keys: Set<String> = [
        "acknowledged-at-most-once", "retry-limit-respected", "no-job-lost", "acknowledged-bytes-kept",
        "appends-at-server-offset", "no-avoidable-duplicates", "timeout",
    ]

    /// The `expect` object for `document` (a schedule or a scenario document).
    public static func expectations(for document: JSONValue) -> JSONValue {
        var expect: [String: JSONValue] = [
            "acknowledged-at-most-once": .bool(true),
            "retry-limit-respected": .bool(true),
            "no-job-lost": .bool(true),
        ]
        if document["client"]?["interop"] != .string("none") {
            expect["acknowledged-bytes-kept"] = .bool(true)
            expect["appends-at-server-offset"] = .bool(true)
            expect["no-avoidable-duplicates"] = .bool(true)
        }
        return .object(expect)
    }
}
