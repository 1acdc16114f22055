import SquallCore

/// An RFC 9457 problem details object (`application/problem+json`) for the problem types of
/// draft-ietf-httpbis-resumable-upload: `mismatching-upload-offset`, `completed-upload` (-04) and
/// `inconsistent-upload-length` (-06).
///
/// The JSON is written by hand: a `type`, a `title`, then integer members in order.
public struct UploadProblem: Sendable, Hashable {
    /// The registry every problem type here lives in.
    public static let typeBase = "https://iana.org/assignments/http-problem-types#"
    /// Offset mismatch (-04), recommended with 409.
    public static let mismatchingOffsetType = typeBase + "mismatching-upload-offset"
    /// Append to a completed upload (-04 … -11).
    public static let completedUploadType = typeBase + "completed-upload"
    /// Lengths that disagree (-06), recommended with 400.
    public static let inconsistentLengthType = typeBase + "inconsistent-upload-length"
    /// The media type of the body.
    public static let mediaType = "application/problem+json"

    public var type: String
    public var title: String
    /// Extension members with integer values, e.g. `expected-offset`.
    public var members: [(name: String, value: Int64)]

    public init(type: String, title: String, members: [(name: String, value: Int64)] = []) {
        self.type = type
        self.title = title
        self.members = members
    }

    /// A 409 body with the resource's (`expected-offset`) and the request's (`provided-offset`) offsets.
    public static func mismatchingOffset(expected: Int64, provided: Int64) -> Self {
        UploadProblem(
            type: mismatchingOffsetType,
            title: "offset from request does not match offset of resource",
            members: [("expected-offset", expected), ("provided-offset", provided)]
        )
    }

    /// A body for an append to a completed upload.
    public static var completedUpload: Self {
        UploadProblem(type: completedUploadType, title: "upload is already completed")
    }

    /// A body for lengths that disagree.
    public static var inconsistentLength: Self {
        UploadProblem(type: inconsistentLengthType, title: "inconsistent length values for upload")
    }

    /// The UTF-8 JSON text, e.g. `{"type":"…","title":"…","expected-offset":5}`.
    public var json: [UInt8] {
        var text = "{\"type\":" + Self.quoted(type) + ",\"title\":" + Self.quoted(title)
        for member in members {
            text += "," + Self.quoted(member.name) + ":" + String(member.value)
        }
        return Array((text + "}").utf8)
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.json == rhs.json
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(json)
    }

    /// A JSON string (RFC 8259 §7).
    static func quoted(_ string: String) -> String {
        JSONText.quoted(string)
    }
}
