import HTTPWire

/// What a request head tells an intermediary about the upload it carries, read without knowing the server's
/// paths (the chaos proxy sees every request, not only the ones to an upload endpoint it knows).
///
/// The fields mean what they mean in the request's interop version (`InteropVersion`): `Upload-Length` from
/// interop 6, the completion field `Upload-Incomplete` (inverted) in interop 3 and `Upload-Complete` after; a
/// request without a known version is read in the newest version's spelling. By method:
///
/// - PATCH (append): starts at `Upload-Offset`; without a completion field it is the last part through interop 6
///   (before -06 required the field).
/// - POST or PUT (creation, or a plain upload): starts at `Upload-Offset`, else 0; without a completion field
///   it is a plain upload, whose content is the whole upload.
/// - Other methods carry no upload content.
///
/// The length is `Upload-Length`, else, when the request completes the upload, its start plus `Content-Length`
/// (`CreationRequest.declaredLength`, `AppendRequest.declaredLength`). A malformed field reads as absent: an
/// intermediary does not reject requests, the server does.
public struct UploadRequestFacts: Sendable, Hashable {
    /// The interop version the request announces; nil when missing or not implemented.
    public var version: InteropVersion?
    /// The request target's path, without query: the upload resource's for HEAD, PATCH and DELETE.
    public var path: String
    /// The upload's absolute offset of the body's first byte; nil for a method that carries no upload content.
    public var start: Int64?
    /// The upload's whole length, when the head states it.
    public var length: Int64?
    /// Whether the request is a creation that asks for a resumable upload (POST or PUT with a known interop
    /// version and its completion field): until the server's 104 announces the upload, the client cannot resume it.
    public var createsResumableUpload: Bool

    public init(
        version: InteropVersion?, path: String, start: Int64?, length: Int64?, createsResumableUpload: Bool = false
    ) {
        self.version = version
        self.path = path
        self.start = start
        self.length = length
        self.createsResumableUpload = createsResumableUpload
    }

    /// Reads `head`; with `unversioned` (the server serves `final`), a request without the version field speaks
    /// `final`.
    public init(_ head: RequestHead, unversioned: Bool = false) {
        let served: Set<InteropVersion> = unversioned ? Set(InteropVersion.all + [.final]) : Set(InteropVersion.all)
        let version = UploadRequest.servedVersion(head.fields, served)
        let reading = version ?? InteropVersion.all.last!
        let fields = head.fields
        let offset = try? UploadFields.size(UploadFields.offset, in: fields)
        let completion = try? UploadFields.completion(in: fields, version: reading)
        let complete: Bool?
        let start: Int64?
        switch head.method {
        case .patch:
            start = offset ?? nil
            complete = completion ?? (reading.requiresCompletionOnAppend ? nil : true)
        case .post, .put:
            start = (offset ?? nil) ?? 0
            complete = completion ?? true
        default:
            start = nil
            complete = nil
        }
        var length: Int64?
        if let start {
            let declared =
                reading.supportsUploadLength ? (try? UploadFields.size(UploadFields.length, in: fields)) : nil
            let contentLength = (try? UploadFields.contentLength(in: fields)) ?? nil
            length = (declared ?? nil) ?? (complete == true ? contentLength.map { start + $0 } : nil)
        }
        let creation = (head.method == .post || head.method == .put) && version != nil && completion != nil
        self.init(
            version: version, path: UploadRequest.path(of: head.target), start: start, length: length,
            createsResumableUpload: creation)
    }
}

/// What a response head tells an intermediary about an upload: the resource a creation announced (`Location` on
/// a 104 or a 2xx, draft -01 on), the upload's length (`Upload-Length` on an offset retrieval's answer, interop
/// 6 on) and completion (`Upload-Complete`, or the inverted `Upload-Incomplete` in interop 3), read in the interop
/// version the response echoes, else the request's, and the offset the server reports (`Upload-Offset`, an
/// sf-Integer ≥ 0). A malformed field reads as absent.
public struct UploadResponseFacts: Sendable, Hashable {
    /// The path of the announced upload resource (`Location`, absolute or relative, without query).
    public var resourcePath: String?
    /// The upload's whole length, when the response states it.
    public var length: Int64?
    /// The upload offset the response reports (`Upload-Offset`), when it states one.
    public var offset: Int64?
    /// Whether the response says the upload is complete, when it says.
    public var complete: Bool?

    public init(resourcePath: String?, length: Int64?, offset: Int64? = nil, complete: Bool? = nil) {
        self.resourcePath = resourcePath
        self.length = length
        self.offset = offset
        self.complete = complete
    }

    public init(_ head: ResponseHead, requestVersion: InteropVersion?) {
        let version = InteropVersion(fields: head.fields) ?? requestVersion ?? InteropVersion.all.last!
        let announces = head.status == 104 || (200...299).contains(head.status)
        let location = announces ? head.fields[UploadFields.location] : nil
        let length = version.supportsUploadLength ? (try? UploadFields.size(UploadFields.length, in: head.fields)) : nil
        let offset = try? UploadFields.size(UploadFields.offset, in: head.fields)
        let complete = try? UploadFields.completion(in: head.fields, version: version)
        self.init(
            resourcePath: location.map { UploadRequest.path(of: $0) }, length: length ?? nil, offset: offset ?? nil,
            complete: complete ?? nil)
    }
}
