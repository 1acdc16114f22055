import HTTPWire

extension UploadResponse {
    /// The response to a rejected request, with the fields and problem body the draft asks for:
    ///
    /// - 409 `mismatchingOffset`: the correct `Upload-Offset`, the completion field saying incomplete, and an
    ///   `application/problem+json` body `mismatching-upload-offset` with `expected-offset` and `provided-offset`.
    /// - `completedUpload`: 400 (with the `completed-upload` problem from interop 6); from interop 8 (-10) an empty
    ///   append gets 410 Gone (without the problem from interop 9, which dropped it), a non-empty one 400
    ///   `inconsistent-upload-length`.
    /// - From interop 9 every rejection of a resumable request carries `Upload-Complete: ?0` (-12 §4.1.2).
    /// - `inconsistentLength`: 400, with the `inconsistent-upload-length` problem from interop 7 (-06).
    /// - 413 `uploadTooLarge`/`appendTooLarge`: `Upload-Limit` (interop 6+).
    /// - Others: their status, and the error's detail as `text/plain` (a 415 says which media type an append must
    ///   have). `version` is nil for a request that was not resumable.
    public static func rejection(
        _ error: UploadProtocolError, version: InteropVersion?, limits: UploadLimits, emptyContent: Bool = false
    ) -> UploadResponse {
        guard let version else {
            return explained(
                ResponseHead(status: error.status, reason: ResponseHead.standardReason(for: error.status)), error.detail
            )
        }
        var response = layerRejection(error, version: version, limits: limits, emptyContent: emptyContent)
        // From interop 9 the resumption layer's answers say so (`Upload-Complete: ?0`); the 409 carries it already.
        if version.flagsRejectionsIncomplete, response.head.fields[version.completionFieldName] == nil {
            response.head.fields.append(
                name: version.completionFieldName, value: version.completionValue(complete: false))
        }
        if version.rejectionsCarryLimits, response.head.fields[UploadLimits.fieldName] == nil,
            let limit = limits.field(for: version)
        {
            response.head.fields.append(name: UploadLimits.fieldName, value: limit)
        }
        return response
    }

    private static func layerRejection(
        _ error: UploadProtocolError, version: InteropVersion, limits: UploadLimits, emptyContent: Bool
    ) -> UploadResponse {
        switch error.code {
        case .mismatchingOffset:
            return mismatch(
                version: version, expected: error.expectedOffset ?? 0, provided: error.providedOffset ?? 0)
        case .completedUpload:
            return completedUpload(version: version, emptyContent: emptyContent)
        case .inconsistentLength where version.hasInconsistentLengthProblem:
            return problem(status: 400, version: version, .inconsistentLength)
        case .uploadTooLarge, .appendTooLarge:
            var head = start(status: 413, version: version)
            if let limit = limits.field(for: version) {
                head.fields.append(name: UploadLimits.fieldName, value: limit)
            }
            return empty(head)
        default:
            return explained(start(status: error.status, version: version), error.detail)
        }
    }

    /// `head` with `detail` as a one-line `text/plain` body, so that a person reading the answer learns what was
    /// wrong and what to send instead.
    public static func explained(_ head: ResponseHead, _ detail: String) -> UploadResponse {
        var head = head
        let body = Array((detail + "\n").utf8)
        head.fields.append(name: UploadFields.contentType, value: "text/plain; charset=utf-8")
        head.fields.append(name: UploadFields.contentLength, value: String(body.count))
        return UploadResponse(head: head, body: body)
    }

    /// 409 for an append at the wrong offset, with the correct `Upload-Offset` (a MUST) and a
    /// `mismatching-upload-offset` problem body (-04).
    public static func mismatch(version: InteropVersion, expected: Int64, provided: Int64) -> UploadResponse {
        var response = problem(
            status: 409, version: version, .mismatchingOffset(expected: expected, provided: provided))
        response.head.fields.append(name: UploadFields.offset, value: String(expected))
        response.head.fields.append(name: version.completionFieldName, value: version.completionValue(complete: false))
        return response
    }

    private static func completedUpload(version: InteropVersion, emptyContent: Bool) -> UploadResponse {
        if version.answersGoneForCompletedUpload {
            guard emptyContent else { return problem(status: 400, version: version, .inconsistentLength) }
            // From interop 9 the `completed-upload` problem type is gone: a bare 410.
            return version.hasCompletedUploadProblem
                ? problem(status: 410, version: version, .completedUpload) : empty(start(status: 410, version: version))
        }
        guard version.hasUploadProblemTypes else { return empty(start(status: 400, version: version)) }
        return problem(status: 400, version: version, .completedUpload)
    }

    private static func problem(status: Int, version: InteropVersion, _ problem: UploadProblem) -> UploadResponse {
        var head = start(status: status, version: version)
        let body = problem.json
        head.fields.append(name: UploadFields.contentType, value: UploadProblem.mediaType)
        head.fields.append(name: UploadFields.contentLength, value: String(body.count))
        return UploadResponse(head: head, body: body)
    }
}
