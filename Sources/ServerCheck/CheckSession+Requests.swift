import HTTPWire
import ResumableUpload
import UploadClient

/// The requests of the draft at the session's interop version (§1.2 of the digest), and the steps several cases
/// share (create an upload, check its offset).
extension CheckSession {
    /// An append's `Content-Type`: the one the version requires, none, or another one.
    enum AppendType {
        /// `application/partial-upload` from interop 6 (-04), none before.
        case required
        case absent
        case other(String)
    }

    /// `count` bytes of content, the same for every run.
    static func content(_ count: Int) -> [UInt8] {
        (0..<count).map { UInt8(ascii: "a") + UInt8($0 % 26) }
    }

    /// The length a request states with `Upload-Length`, which exists from interop 6 (-05): `length`, or nil before.
    func uploadLength(_ length: Int64) -> Int64? {
        version.supportsUploadLength ? length : nil
    }

    /// The interop field, and the completion field in the version's spelling when `complete` is given.
    func uploadFields(complete: Bool?) -> HTTPFields {
        var fields = HTTPFields()
        version.stamp(&fields)
        if let complete {
            fields.append(name: version.completionFieldName, value: version.completionValue(complete: complete))
        }
        return fields
    }

    /// OPTIONS on the creation URL (discovery, -05).
    func options() -> CheckRequest {
        CheckRequest(.options, creationURL, fields: uploadFields(complete: nil))
    }

    /// A creation: POST to the creation URL with `body`, the completion field and, from interop 6,
    /// `Upload-Length: length` when a length is given.
    func creation(complete: Bool, body: [UInt8], length: Int64? = nil) -> CheckRequest {
        var fields = uploadFields(complete: complete)
        if let length, let stated = uploadLength(length) { fields.append(name: "Upload-Length", value: String(stated)) }
        let stated = complete ? Int64(body.count) : length.flatMap(uploadLength)
        return CheckRequest(.post, creationURL, fields: fields, body: body, statedLength: stated)
    }

    /// An append to `resource`: `Upload-Offset: offset` as written (nil: none), the completion field when
    /// `complete` is given, and the `Content-Type` `type` says.
    func append(
        _ resource: HTTPURL, offset: String?, complete: Bool?, body: [UInt8], type: AppendType = .required
    ) -> CheckRequest {
        var fields = uploadFields(complete: nil)
        if let offset { fields.append(name: "Upload-Offset", value: offset) }
        if let complete {
            fields.append(name: version.completionFieldName, value: version.completionValue(complete: complete))
        }
        switch type {
        case .required where version.requiresPartialUploadContentType:
            fields.append(name: "Content-Type", value: "application/partial-upload")
        case .required, .absent:
            break
        case .other(let value):
            fields.append(name: "Content-Type", value: value)
        }
        return CheckRequest(.patch, resource, fields: fields, body: body)
    }

    /// HEAD on `resource` (offset retrieval); `statedLength` is the length the case stated before.
    func offsetRetrieval(_ resource: HTTPURL, statedLength: Int64? = nil) -> CheckRequest {
        CheckRequest(.head, resource, fields: uploadFields(complete: nil), statedLength: statedLength)
    }

    /// DELETE on `resource` (cancellation).
    func cancellation(_ resource: HTTPURL) -> CheckRequest {
        CheckRequest(.delete, resource, fields: uploadFields(complete: nil))
    }

    // MARK: - Shared steps

    /// Creates an upload of `length` bytes with its first `sent` (a partial creation) and returns its resource.
    func createPartial(sent: Int, of length: Int64) throws(CheckFailure) -> HTTPURL {
        let answer = try send(creation(complete: false, body: Self.content(sent), length: length)).expectSuccess()
        return try resource(answer.announcedLocation())
    }

    /// Creates a complete upload of `length` bytes and returns its resource (announced by the 104).
    func createComplete(length: Int) throws(CheckFailure) -> HTTPURL {
        let answer = try send(creation(complete: true, body: Self.content(length), length: Int64(length)))
            .expectSuccess()
        return try resource(answer.announcedLocation())
    }

    /// HEAD on `resource` answers 2xx at `offset`, complete or not.
    @discardableResult
    func expectOffset(_ resource: HTTPURL, _ offset: Int64, complete: Bool, statedLength: Int64? = nil)
        throws(CheckFailure) -> CheckAnswer
    {
        let answer = try send(offsetRetrieval(resource, statedLength: statedLength))
        try answer.expectSuccess("2xx at offset \(offset)")
        try answer.expectState(offset: offset, complete: complete)
        return answer
    }
}
