import HTTPWire

extension UploadRequest {
    /// Classifies and validates a request head (draft -01 "Request Identification", §3.0 of the digest):
    ///
    /// 1. No implemented version among `configuration.versions` ⇒ `.plainUpload`. A request without
    ///    `Upload-Draft-Interop-Version` speaks `final` when the configuration serves it.
    /// 2. OPTIONS on the creation path, an upload resource or `*` ⇒ `.options` (even with resumability off, so
    ///    that the server can answer 501); any other request with resumability off ⇒ `.plainUpload`.
    /// 3. POST/PUT on the creation path with the completion field ⇒ `.create`; without it, or below `min-size`,
    ///    ⇒ `.plainUpload`.
    /// 4. `<prefix><id>`: HEAD (and GET from interop 9) ⇒ `.offset`, PATCH ⇒ `.append`, DELETE ⇒ `.cancel`, others
    ///    ⇒ 405.
    /// 5. Anything else ⇒ `.plainUpload`.
    ///
    /// Throws the 4xx the draft prescribes for a malformed or inconsistent resumable request.
    public static func classify(
        _ head: RequestHead, configuration: UploadProtocolConfiguration
    ) throws(UploadProtocolError) -> UploadRequest {
        guard let version = servedVersion(head.fields, configuration.versions) else { return .plainUpload }
        let path = Self.path(of: head.target)
        let id = Self.resourceID(path, prefix: configuration.resourcePathPrefix)
        if head.method == .options {
            let known = path == configuration.creationPath || path == "*" || id != nil
            return known ? .options(version) : .plainUpload
        }
        guard configuration.resumable else { return .plainUpload }
        if path == configuration.creationPath {
            guard head.method == .post || head.method == .put else { return .plainUpload }
            guard let request = try creation(head.fields, version: version),
                offersResumability(request, minSize: configuration.limits.minSize)
            else { return .plainUpload }
            return .create(request)
        }
        guard let id else { return .plainUpload }
        return try resourceRequest(head, id: id, version: version)
    }

    /// The version `fields` speak, if `served` has it: the announced one, or `final` for a request that announces
    /// none (a field that is present but unknown or malformed is never `final`).
    public static func servedVersion(_ fields: HTTPFields, _ served: Set<InteropVersion>) -> InteropVersion? {
        if let announced = InteropVersion(fields: fields) { return served.contains(announced) ? announced : nil }
        guard !fields.contains(InteropVersion.fieldName), served.contains(.final) else { return nil }
        return .final
    }

    private static func resourceRequest(
        _ head: RequestHead, id: String, version: InteropVersion
    ) throws(UploadProtocolError) -> UploadRequest {
        guard !id.isEmpty, !id.contains("/") else {
            throw UploadProtocolError(.unknownUpload, "no upload resource at \(head.target)")
        }
        switch head.method {
        case .head:
            try rejectUploadFields(head.fields, version: version)
            return .offset(id: id, version: version)
        case .get where version.retrievesOffsetOnGet:
            try rejectUploadFields(head.fields, version: version)
            return .offset(id: id, version: version)
        case .patch:
            return .append(id: id, try append(head.fields, version: version))
        case .delete:
            try rejectUploadFields(head.fields, version: version)
            return .cancel(id: id, version: version)
        default:
            throw UploadProtocolError(.methodNotAllowed, "\(head.method) is not defined on an upload resource")
        }
    }

    /// A creation, or nil when the completion field is absent (a plain upload).
    private static func creation(
        _ fields: HTTPFields, version: InteropVersion
    ) throws(UploadProtocolError) -> CreationRequest? {
        guard let complete = try UploadFields.completion(in: fields, version: version) else { return nil }
        if version.rejectsCreationOffset, let offset = try UploadFields.size(UploadFields.offset, in: fields),
            offset != 0
        {
            throw UploadProtocolError(
                .unexpectedField, "a creation must not carry a non-zero Upload-Offset", field: UploadFields.offset)
        }
        let request = CreationRequest(
            version: version,
            complete: complete,
            contentLength: try UploadFields.contentLength(in: fields),
            uploadLength: try uploadLength(fields, version: version),
            idempotencyKey: try UploadFields.idempotencyKey(in: fields),
            digests: try RequestDigests(fields: fields)
        )
        try checkConsistent(request.uploadLength, request.complete ? request.contentLength : nil)
        return request
    }

    private static func append(_ fields: HTTPFields, version: InteropVersion) throws(UploadProtocolError)
        -> AppendRequest
    {
        guard let offset = try UploadFields.size(UploadFields.offset, in: fields) else {
            throw .missing(UploadFields.offset)
        }
        let flag = try UploadFields.completion(in: fields, version: version)
        if flag == nil, version.requiresCompletionOnAppend { throw .missing(version.completionFieldName) }
        if version.requiresPartialUploadContentType, !UploadFields.isPartialUpload(fields) {
            throw UploadProtocolError(
                .unsupportedMediaType, "an append must have Content-Type \(UploadFields.partialUpload)",
                field: UploadFields.contentType)
        }
        let request = AppendRequest(
            version: version,
            offset: offset,
            complete: flag ?? true,
            contentLength: try UploadFields.contentLength(in: fields),
            uploadLength: try uploadLength(fields, version: version),
            digests: try RequestDigests(fields: fields)
        )
        try checkConsistent(request.uploadLength, request.complete ? request.contentLength.map { offset + $0 } : nil)
        return request
    }

    private static func uploadLength(_ fields: HTTPFields, version: InteropVersion) throws(UploadProtocolError)
        -> Int64?
    {
        guard version.supportsUploadLength else { return nil }
        return try UploadFields.size(UploadFields.length, in: fields)
    }

    /// 400 when `Upload-Length` and the length implied by a completing request's `Content-Length` differ.
    private static func checkConsistent(_ uploadLength: Int64?, _ implied: Int64?) throws(UploadProtocolError) {
        guard let uploadLength, let implied, uploadLength != implied else { return }
        throw UploadProtocolError(
            .inconsistentLength, "Upload-Length \(uploadLength) disagrees with the content's end \(implied)",
            field: UploadFields.length)
    }

    /// 400 for HEAD or DELETE carrying `Upload-Offset`, the completion field or `Upload-Length` (interop 3 … 6).
    private static func rejectUploadFields(_ fields: HTTPFields, version: InteropVersion) throws(UploadProtocolError) {
        guard version.rejectsUploadFieldsOnHeadAndDelete else { return }
        for name in [UploadFields.offset, version.completionFieldName, UploadFields.length] where fields.contains(name)
        {
            throw UploadProtocolError(.unexpectedField, "\(name) is not allowed here", field: name)
        }
    }

    /// Whether a creation reaches `min-size`, the threshold for resumability: below it, or without a length to
    /// compare, the server declines and serves a plain upload (-04; "may still be processed" post -11).
    private static func offersResumability(_ request: CreationRequest, minSize: Int64?) -> Bool {
        guard let minSize, minSize > 0 else { return true }
        guard let length = request.declaredLength else { return false }
        return length >= minSize
    }

    /// The path of an origin-form or absolute-form target, without query or fragment: the upload resource a
    /// request or a `Location` names, for every module that keys uploads by resource.
    public static func path(of target: String) -> String {
        var rest = Substring(target)
        if let scheme = rest.firstRange(of: "://") {
            rest = rest[scheme.upperBound...]
            rest = rest.firstIndex(of: "/").map { rest[$0...] } ?? "/"
        }
        return String(rest.prefix { $0 != "?" && $0 != "#" })
    }

    /// The origin of an absolute-form target or `Location`, `scheme://authority` (lower-cased), or nil for a relative
    /// reference.
    public static func origin(of reference: String) -> String? {
        guard let scheme = reference.firstRange(of: "://") else { return nil }
        let rest = reference[scheme.upperBound...]
        let end = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        return reference[..<end].lowercased()
    }

    /// The id after `prefix`, or nil when `path` is not under it.
    static func resourceID(_ path: String, prefix: String) -> String? {
        guard path.hasPrefix(prefix) else { return nil }
        return String(path.dropFirst(prefix.count))
    }
}
