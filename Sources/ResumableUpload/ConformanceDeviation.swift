/// One way a server's answer departs from draft-ietf-httpbis-resumable-upload at the request's interop version, or
/// an answer common clients cannot take: a stable `rule` and a sentence naming what was seen and what was due.
public struct ConformanceDeviation: Sendable, Hashable, CustomStringConvertible {
    /// The stable identity of a deviation; each says which draft revision requires what it checks.
    public enum Rule: String, Sendable, Hashable, CaseIterable {
        /// A 104 to a request without `Upload-Draft-Interop-Version` (the server MUST NOT send one, -00 on).
        case unrequestedInterim = "unrequested-104"
        /// A 104 that does not carry the request's interop version (it MUST, -00 on; clients ignore it otherwise).
        case interimVersion = "104-version"
        /// The other version's completion field: `Upload-Complete` in interop 3, `Upload-Incomplete` from 4 on.
        case completionField = "completion-field"
        /// A completion flag that contradicts the request, or one a version requires and the answer lacks.
        case completionValue = "completion-value"
        /// `Upload-Offset` missing where the version requires it (HEAD, 409, progress 104s, finals through 6).
        case missingOffset = "missing-offset"
        /// An upload field that is not the structured field the draft defines.
        case malformedField = "malformed-field"
        /// An offset lower than one the server acknowledged before for the same upload (offsets never decrease).
        case offsetDecreased = "offset-decreased"
        /// An offset beyond the bytes the upload's requests delivered: the server acknowledges bytes it never got.
        case offsetBeyondData = "offset-beyond-data"
        /// A creation's first 104 without `Location`, or a partial creation's 2xx without it (-01 on): the client
        /// cannot resume.
        case missingLocation = "missing-location"
        /// `Location` differing between a creation's 104s and its final response.
        case locationChanged = "location-changed"
        /// An offset retrieval's answer without a field the version requires (completion field; `Upload-Length`
        /// the client stated, from interop 7; `Upload-Limit` from interop 8), or with a status it does not allow
        /// (200 before interop 5).
        case offsetRetrieval = "offset-retrieval"
        /// A successful OPTIONS answer without `Upload-Limit` (-05, interop 6: a server that creates uploads at the
        /// target announces its limits, `min-size=0` when it has none).
        case optionsLimit = "options-limit"
        /// A successful answer saying the upload is complete at an offset below the length the client stated
        /// (`Upload-Length`, or the end of a completing request): the length is known and MUST stay consistent
        /// (-05 on, -12 §4.1.3), so the server holds only part of what it calls complete.
        case completeBelowLength = "complete-below-length"
        /// More informational responses on one request than common clients accept (Go's net/http before 1.24
        /// fails after five).
        case tooManyInformational = "informational-count"
        /// A 4xx refusing a creation at an interop version the server does not serve (other than the statuses any
        /// plain upload may meet: `ServerConformance.plainUploadStatuses`): such a request is a plain upload, never
        /// rejected for its version (-00 on; Apple's clients send 3, 5, 6 and 8, and a server may serve fewer).
        case unservedVersionRefused = "unserved-version-refused"
    }

    public var rule: Rule
    public var detail: String

    public init(_ rule: Rule, _ detail: String) {
        self.rule = rule
        self.detail = detail
    }

    public var description: String { "\(rule.rawValue): \(detail)" }
}
