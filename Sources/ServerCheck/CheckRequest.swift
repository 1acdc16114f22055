import HTTPWire
import ResumableUpload
import UploadClient

/// One request a case sends, on a connection of its own: the head (the session adds `Host`, `Content-Length`
/// unless the head states one, and the bearer token), the content, and how the bytes go out.
struct CheckRequest {
    /// How the request's bytes are written.
    enum Delivery {
        /// Head and content as any client writes them.
        case whole
        /// The head in writes of `size` bytes, `gap` apart, then the content: a server must put a head together
        /// from many reads.
        case headInPieces(size: Int, gap: Duration)
        /// The head and the content (less than the head declares), then the connection is closed once a 104
        /// announced the upload: a creation cut short.
        case cutAfterAnnouncement
    }

    var url: HTTPURL
    var head: RequestHead
    var body: [UInt8]
    var delivery: Delivery
    /// The upload's length the case stated in earlier requests (for the HEAD rules of `ServerConformance`).
    var statedLength: Int64?

    init(
        _ method: HTTPMethod, _ url: HTTPURL, fields: HTTPFields = [:], body: [UInt8] = [],
        delivery: Delivery = .whole, statedLength: Int64? = nil
    ) {
        self.url = url
        self.head = RequestHead(method: method, target: url.target, fields: fields)
        self.body = body
        self.delivery = delivery
        self.statedLength = statedLength
    }

    /// `POST /upload` as the console names a request.
    var label: String { "\(head.method) \(head.target)" }
}

/// What the server answered to a `CheckRequest`: its interim responses, the final response (nil when the case
/// cut the request after the 104) and the final response's content (its first 64 KiB).
struct CheckAnswer {
    var interims: [ResponseHead]
    var final: ResponseHead?
    var body: [UInt8]
    /// The request it answers, as the server got it.
    var request: RequestHead

    /// The upload resource the answer announces: the first 104's `Location`, else the final response's.
    var location: String? {
        interims.first { $0.status == 104 && $0.fields["Location"] != nil }?.fields["Location"]
            ?? final.flatMap { (200...299).contains($0.status) ? $0.fields["Location"] : nil }
    }

    /// The 104s it carries.
    var announcements: [ResponseHead] { interims.filter { $0.status == 104 } }

    /// What the final response says of the upload (offset, completion, length), in the request's version.
    var facts: UploadResponseFacts? {
        final.map { UploadResponseFacts($0, requestVersion: InteropVersion(fields: request.fields)) }
    }

    /// `no 104`, `one 104`, `3 104s`.
    var interimCount: String {
        switch announcements.count {
        case 0: "no 104"
        case 1: "one 104"
        case let count: "\(count) 104s"
        }
    }

    /// `201`, `404`, or `no final response`.
    var status: String {
        final.map { "\($0.status)" } ?? "no final response"
    }

    /// The final status and the upload fields it carries (`Location` as its path; `Upload-Limit` when asked):
    /// `409 (Upload-Offset: 32, Upload-Complete: ?0)`.
    func summary(limits: Bool = false) -> String {
        guard let final else { return status }
        var shown = final.fields["Location"].map { ["Location: \(UploadRequest.path(of: $0))"] } ?? []
        for name in ["Upload-Offset", "Upload-Complete", "Upload-Incomplete", "Upload-Length"]
            + (limits ? ["Upload-Limit"] : [])
        {
            if let value = final.fields[name] { shown.append("\(name): \(value)") }
        }
        return shown.isEmpty ? "\(final.status)" : "\(final.status) (\(shown.joined(separator: ", ")))"
    }
}
