import HTTPWire

/// A response the resumable-upload rules produce: a head and a small body (empty or problem JSON).
///
/// Every builder is pure and echoes `Upload-Draft-Interop-Version`; the field set follows the request's interop
/// version (§1.2 of the digest). Final responses without content carry `Content-Length: 0` (except 204).
public struct UploadResponse: Sendable, Hashable {
    public var head: ResponseHead
    public var body: [UInt8]

    public init(head: ResponseHead, body: [UInt8] = []) {
        self.head = head
        self.body = body
    }

    /// The reason phrase of 104 (draft -00 onwards).
    public static let uploadResumptionSupported = "Upload Resumption Supported"

    /// The 104 that announces the upload resource, sent before the body is read: `Location`, the interop echo and
    /// `Upload-Limit` (interop 6+; a MUST when limits exist from -09, interop 8).
    public static func interim104(location: String, version: InteropVersion, limits: UploadLimits) -> ResponseHead {
        var head = ResponseHead(status: 104, reason: uploadResumptionSupported)
        version.stamp(&head.fields)
        head.fields.append(name: UploadFields.location, value: location)
        if let limit = limits.field(for: version) { head.fields.append(name: UploadLimits.fieldName, value: limit) }
        return head
    }

    /// A progress 104 (-03, interop 5): the interop echo and `Upload-Offset`, never `Location`.
    public static func progress104(offset: Int64, version: InteropVersion) -> ResponseHead {
        var head = ResponseHead(status: 104, reason: uploadResumptionSupported)
        version.stamp(&head.fields)
        head.fields.append(name: UploadFields.offset, value: String(offset))
        return head
    }

    /// The final response to a creation whose body was fully read.
    ///
    /// Through interop 6: 201 + `Location` + `Upload-Offset`. From interop 7 (-06): 201 while incomplete, 200 once
    /// complete. The completion field: interop 3 only flags a partial upload (`Upload-Incomplete: ?1`); from 4 on
    /// `Upload-Complete` always. `Upload-Limit` from interop 6; `x-server-resource-id` once complete.
    public static func creationFinal(
        version: InteropVersion, location: String, offset: Int64, complete: Bool, limits: UploadLimits,
        resourceID: String
    ) -> UploadResponse {
        let status = version.finalResponseCarriesOffset || !complete ? 201 : 200
        var response = finalResponse(
            status: status, version: version, offset: offset, complete: complete, limits: limits)
        response.head.fields.append(name: UploadFields.location, value: location)
        if complete { response.head.fields.append(name: UploadFields.resourceID, value: resourceID) }
        return response
    }

    /// The final response to an append whose body was fully read: 201 + `Upload-Offset` through interop 6; from
    /// interop 7 (-06) 204 + `Upload-Complete: ?0` while incomplete and 200 + `Upload-Complete: ?1` once complete.
    public static func appendFinal(
        version: InteropVersion, offset: Int64, complete: Bool, limits: UploadLimits, resourceID: String
    ) -> UploadResponse {
        let status = version.finalResponseCarriesOffset ? 201 : complete ? 200 : 204
        var response = finalResponse(
            status: status, version: version, offset: offset, complete: complete, limits: limits)
        if complete { response.head.fields.append(name: UploadFields.resourceID, value: resourceID) }
        return response
    }

    /// The offset retrieval response (HEAD): `preferredStatus` (200 or 204) when the version allows it (200 from
    /// interop 5), else 204; `Upload-Offset`, the completion field, `Upload-Length` when known and `Upload-Limit`
    /// (interop 6+), `Cache-Control: no-store`, and `x-server-resource-id` once complete (so a client that lost the
    /// final response still learns it); no content.
    public static func offsetRetrieval(
        version: InteropVersion, offset: Int64, complete: Bool, length: Int64?, limits: UploadLimits,
        preferredStatus: Int = 204, resourceID: String? = nil
    ) -> UploadResponse {
        let status = version.headSuccessStatuses.contains(preferredStatus) ? preferredStatus : 204
        var head = start(status: status, version: version)
        head.fields.append(name: UploadFields.offset, value: String(offset))
        head.fields.append(name: version.completionFieldName, value: version.completionValue(complete: complete))
        if version.supportsUploadLength, let length {
            head.fields.append(name: UploadFields.length, value: String(length))
        }
        if let limit = limits.field(for: version) { head.fields.append(name: UploadLimits.fieldName, value: limit) }
        head.fields.append(name: UploadFields.cacheControl, value: "no-store")
        if complete, let resourceID { head.fields.append(name: UploadFields.resourceID, value: resourceID) }
        return UploadResponse(head: head)
    }

    /// The response to a cancellation (DELETE): 204 (a MUST in -06 … -08).
    public static func cancelled(version: InteropVersion) -> UploadResponse {
        UploadResponse(head: start(status: 204, version: version))
    }

    /// The response to OPTIONS: 200 + `Upload-Limit` (`min-size=0` when unlimited; -05), or 501 when
    /// resumability is off (the Apple/NIO convention). Before interop 6 the field is sent in its interop-6
    /// spelling, as NIO does: older clients ignore it.
    public static func options(version: InteropVersion, limits: UploadLimits, resumable: Bool) -> UploadResponse {
        guard resumable else { return empty(start(status: 501, version: version)) }
        var head = start(status: 200, version: version)
        let spelling = version.supportsLimits ? version : InteropVersion.firstWithLimits
        if let limit = limits.field(for: spelling) { head.fields.append(name: UploadLimits.fieldName, value: limit) }
        return empty(head)
    }

    static func finalResponse(
        status: Int, version: InteropVersion, offset: Int64, complete: Bool, limits: UploadLimits
    ) -> UploadResponse {
        var head = start(status: status, version: version)
        if version.finalResponseCarriesOffset || (!complete && version.partialResponseCarriesOffset) {
            head.fields.append(name: UploadFields.offset, value: String(offset))
        }
        if version.finalResponseFlagsCompletion || !complete {
            head.fields.append(name: version.completionFieldName, value: version.completionValue(complete: complete))
        }
        if let limit = limits.field(for: version) { head.fields.append(name: UploadLimits.fieldName, value: limit) }
        return status == 204 ? UploadResponse(head: head) : empty(head)
    }

    /// A head with `status`, its reason phrase and the interop echo.
    static func start(status: Int, version: InteropVersion) -> ResponseHead {
        var head = ResponseHead(status: status, reason: ResponseHead.standardReason(for: status))
        version.stamp(&head.fields)
        return head
    }

    /// `head` with `Content-Length: 0`.
    public static func empty(_ head: ResponseHead) -> UploadResponse {
        var head = head
        head.fields.append(name: UploadFields.contentLength, value: "0")
        return UploadResponse(head: head)
    }
}
