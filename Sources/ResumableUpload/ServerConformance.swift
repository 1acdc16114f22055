import HTTPWire

/// One request and what the server answered to it, as an intermediary saw them: the request head the server got,
/// every interim response, the final response (nil when none came: a cut, a timeout), how many content bytes
/// the server received, and the upload's length when earlier requests stated it.
public struct ServerExchange: Sendable, Hashable {
    public var request: RequestHead
    public var interims: [ResponseHead]
    public var response: ResponseHead?
    /// Request content bytes delivered to the server; nil when unknown.
    public var bodyBytes: Int64?
    /// The upload's length as the client stated it before this request (`Upload-Length`, or the length of a
    /// completing request); nil when it stated none, or the judge does not know.
    public var statedLength: Int64?

    public init(
        request: RequestHead, interims: [ResponseHead] = [], response: ResponseHead?, bodyBytes: Int64? = nil,
        statedLength: Int64? = nil
    ) {
        self.request = request
        self.interims = interims
        self.response = response
        self.bodyBytes = bodyBytes
        self.statedLength = statedLength
    }
}

/// Judges a server's answers against the resumable-upload draft at each request's interop version (the digest's
/// §1.2 matrix and §8.3 conformance cases), without knowing the server's paths: a creation is a POST or PUT
/// carrying the completion field, an offset retrieval a HEAD, an append a PATCH, discovery an OPTIONS. Only what a version requires
/// (MUST) is a deviation; a SHOULD is not. Requests with an interop version outside 3 … 10 are not judged (their
/// rules are unknown here), except for the count of informational responses.
///
/// `check` judges one exchange alone; what answers say across exchanges (an offset lower than one acknowledged
/// before, or beyond the bytes delivered) is `UploadOffsetHistory`'s, fed in wire order with `acknowledgement`.
public enum ServerConformance {
    /// The most informational responses per request Go's net/http (before 1.24) accepts.
    public static let informationalLimit = 5

    /// The 4xx statuses a plain upload may meet for reasons of its own (auth, size, rate, method, time, form), which
    /// are no refusal of an interop version.
    public static let plainUploadStatuses: Set<Int> = [401, 403, 404, 405, 407, 408, 411, 413, 414, 415, 429, 431]

    /// The deviations of `exchange`, judged alone; with `served` (the interop versions the server serves
    /// resumably, when known), a creation at another version refused with a 4xx is one too. When `served` holds
    /// `InteropVersion.finalRawValue`, a request without `Upload-Draft-Interop-Version` is judged as `final`.
    public static func check(_ exchange: ServerExchange, served: Set<Int>? = nil) -> [ConformanceDeviation] {
        var found: [ConformanceDeviation] = []
        if let served, let refusal = unservedVersionRefusal(exchange, served: served) { found.append(refusal) }
        let count = exchange.interims.count
        if count > Self.informationalLimit {
            found.append(
                .init(
                    .tooManyInformational,
                    "\(count) informational responses on one request: clients built on Go's net/http before 1.24 "
                        + "fail after \(Self.informationalLimit)"))
        }
        let request = exchange.request
        let servesFinal = served?.contains(InteropVersion.finalRawValue) == true
        guard request.fields.contains(InteropVersion.fieldName) || servesFinal else {
            if exchange.interims.contains(where: { $0.status == 104 }) {
                found.append(
                    .init(.unrequestedInterim, "a 104 to a request without \(InteropVersion.fieldName)"))
            }
            return found
        }
        guard let version = InteropVersion(fields: request.fields) ?? (servesFinal ? .final : nil) else {
            return found
        }
        let answers = exchange.interims + (exchange.response.map { [$0] } ?? [])
        for answer in answers {
            found += completionFamily(answer, version: version)
            if let malformed = malformedOffset(answer) { found.append(malformed) }
        }
        for interim in exchange.interims where interim.status == 104 && !version.isEchoed(in: interim.fields) {
            let echoed = interim.fields[InteropVersion.fieldName].map { "\($0)" } ?? "none"
            found.append(.init(.interimVersion, "a 104 carrying interop version \(echoed) to an \(version) request"))
        }
        switch request.method {
        case .post, .put:
            guard let complete = try? UploadFields.completion(in: request.fields, version: version) else {
                return found
            }
            found += creation(exchange, version: version, complete: complete)
        case .patch:
            found += append(exchange, version: version)
        case .head:
            found += offsetRetrieval(exchange, version: version)
        case .options:
            found += discovery(exchange, version: version)
        default:
            break
        }
        return found
    }

    /// A 4xx to a creation (POST or PUT) at an interop version outside `served`.
    private static func unservedVersionRefusal(_ exchange: ServerExchange, served: Set<Int>) -> ConformanceDeviation? {
        guard exchange.request.method == .post || exchange.request.method == .put,
            let version = InteropVersion.announced(in: exchange.request.fields), !served.contains(version),
            let status = exchange.response?.status, (400...499).contains(status), !plainUploadStatuses.contains(status)
        else { return nil }
        let list = served.sorted().map(InteropVersion.word).joined(separator: ", ")
        return .init(
            .unservedVersionRefused,
            "a \(status) to a creation at interop \(version), which the server does not serve (it serves "
                + "\(list.isEmpty ? "none" : list)): a request at a version a server does not serve is a plain "
                + "upload, never refused for its version")
    }

    // MARK: - By request kind

    private static func creation(_ exchange: ServerExchange, version: InteropVersion, complete: Bool)
        -> [ConformanceDeviation]
    {
        var found: [ConformanceDeviation] = []
        let announcements = exchange.interims.filter { $0.status == 104 }
        // A complete request's final response is the target resource's, whose Location may name something else.
        let finals = exchange.response.map { complete || !(200...299).contains($0.status) ? [] : [$0] } ?? []
        let locations = (announcements + finals).compactMap { $0.fields[UploadFields.location] }
        if let first = announcements.first, first.fields[UploadFields.location] == nil {
            found.append(.init(.missingLocation, "the creation's first 104 carries no Location"))
        }
        if let first = locations.first, let other = locations.first(where: { !samePlace($0, first) }) {
            found.append(.init(.locationChanged, "Location \(first), then \(other)"))
        }
        // No 104 and no upload field in the answer: the server served the request as a plain upload, which it may
        // for any version (it need not offer resumability), so the final response is not judged as a creation's.
        if announcements.isEmpty, let response = exchange.response, !Self.hasUploadFields(response) {
            return found
        }
        // From interop 9 a `?1` answer is the resource's own (#3404): its Location, if any, is the resource's.
        let resourceAnswered =
            version.answersEarlyAsTheResource
            && exchange.response.map { (try? UploadFields.completion(in: $0.fields, version: version)) == true } == true
        if !complete, !resourceAnswered, let response = exchange.response, (200...299).contains(response.status),
            response.fields[UploadFields.location] == nil
        {
            found.append(
                .init(.missingLocation, "the final \(response.status) to a partial creation carries no Location"))
        }
        let start = (try? UploadFields.size(UploadFields.offset, in: exchange.request.fields)) ?? nil
        return found + delivered(exchange, from: start ?? 0, version: version, complete: complete)
    }

    private static func append(_ exchange: ServerExchange, version: InteropVersion) -> [ConformanceDeviation] {
        guard let start = (try? UploadFields.size(UploadFields.offset, in: exchange.request.fields)) ?? nil else {
            return []
        }
        var found: [ConformanceDeviation] = []
        if let response = exchange.response, response.status == 409, response.fields[UploadFields.offset] == nil {
            found.append(.init(.missingOffset, "a 409 to an append without Upload-Offset (the offset to resume from)"))
        }
        if let response = exchange.response, response.status == 409, version.conflictFlagsIncomplete,
            (try? UploadFields.completion(in: response.fields, version: version)) != false
        {
            found.append(
                .init(
                    .completionValue,
                    "a 409 to an append without \(version.completionFieldName): ?0 (required from interop 9, -12 "
                        + "§4.4.2)"))
        }
        let completion = try? UploadFields.completion(in: exchange.request.fields, version: version)
        let complete = completion ?? (version.requiresCompletionOnAppend ? false : true)
        return found + delivered(exchange, from: start, version: version, complete: complete)
    }

    /// What a creation or append delivered and what the server acknowledged of it: offsets in progress 104s (in
    /// order, and within the bytes delivered) and the final response, the completion flag of a successful final
    /// response.
    private static func delivered(
        _ exchange: ServerExchange, from start: Int64, version: InteropVersion, complete: Bool
    ) -> [ConformanceDeviation] {
        var found: [ConformanceDeviation] = []
        let progress = exchange.interims.filter { $0.status == 104 }.dropFirst(1)
        if version.sendsProgress, progress.contains(where: { $0.fields[UploadFields.offset] == nil }) {
            found.append(.init(.missingOffset, "a progress 104 without Upload-Offset"))
        }
        var acknowledged: [(Int64, String)] = exchange.interims.filter { $0.status == 104 }.compactMap { interim in
            reported(interim).map { ($0, "a 104") }
        }
        if let response = exchange.response, (200...299).contains(response.status) {
            if let offset = reported(response) { acknowledged.append((offset, "the final \(response.status)")) }
            if version.finalResponseCarriesOffset, response.fields[UploadFields.offset] == nil {
                found.append(
                    .init(
                        .missingOffset, "a final \(response.status) without Upload-Offset (required through interop 6)")
                )
            }
            found += finalCompletion(response, version: version, complete: complete)
            if let below = completeBelowLength(response, exchange, version, "the final \(response.status)") {
                found.append(below)
            }
        }
        var highest = start
        for (offset, source) in acknowledged {
            if offset < highest {
                found.append(.init(.offsetDecreased, "\(source) reports offset \(offset) after \(highest)"))
            }
            if let bytes = exchange.bodyBytes, offset > start + bytes {
                found.append(
                    .init(
                        .offsetBeyondData,
                        "\(source) reports offset \(offset), but the request delivered bytes \(start) to "
                            + "\(start + bytes)"))
            }
            highest = max(highest, offset)
        }
        return found
    }

    private static func offsetRetrieval(_ exchange: ServerExchange, version: InteropVersion) -> [ConformanceDeviation] {
        guard let response = exchange.response, (200...299).contains(response.status) else { return [] }
        var found: [ConformanceDeviation] = []
        if !version.headSuccessStatuses.contains(response.status) {
            let allowed = version.headSuccessStatuses.sorted().map(String.init).joined(separator: " or ")
            found.append(.init(.offsetRetrieval, "HEAD answered \(response.status); \(version) allows \(allowed)"))
        }
        let requiresBoth = version.offsetRetrievalRequiresCompletionAndLength
        if requiresBoth, response.fields[version.completionFieldName] == nil {
            found.append(.init(.offsetRetrieval, "HEAD answer without \(version.completionFieldName)"))
        }
        if let below = completeBelowLength(response, exchange, version, "HEAD") { found.append(below) }
        if version.rawValue >= 7, requiresBoth, let length = exchange.statedLength,
            response.fields[UploadFields.length] == nil
        {
            found.append(
                .init(
                    .offsetRetrieval,
                    "HEAD answer without Upload-Length, though the client stated \(length) (required from interop 7)"))
        }
        if version.rawValue >= 8, response.fields[UploadLimits.fieldName] == nil {
            found.append(.init(.offsetRetrieval, "HEAD answer without Upload-Limit (required from interop 8)"))
        }
        if response.fields[UploadFields.offset] == nil {
            found.append(.init(.missingOffset, "HEAD answer without Upload-Offset"))
        }
        return found
    }

    /// `answer` (by `who`) flagged complete at an `Upload-Offset` below the length the client stated, if it is.
    private static func completeBelowLength(
        _ answer: ResponseHead, _ exchange: ServerExchange, _ version: InteropVersion, _ who: String
    ) -> ConformanceDeviation? {
        guard let length = exchange.statedLength, let offset = reported(answer), offset < length,
            (try? UploadFields.completion(in: answer.fields, version: version)) == true
        else { return nil }
        return .init(
            .completeBelowLength,
            "\(who) says the upload is complete at offset \(offset), below the length \(length) the client stated")
    }

    /// A successful OPTIONS answer at interop 6 or later must announce the limits (-05).
    private static func discovery(_ exchange: ServerExchange, version: InteropVersion) -> [ConformanceDeviation] {
        guard version.supportsLimits, let response = exchange.response, (200...299).contains(response.status),
            response.fields[UploadLimits.fieldName] == nil
        else { return [] }
        return [
            .init(
                .optionsLimit,
                "OPTIONS answered \(response.status) without Upload-Limit (required from interop 6, -05; "
                    + "min-size=0 when there are no limits)")
        ]
    }

    /// The upload resource and offset `response` (interim or final, to `request`) acknowledges, if it reports one:
    /// a HEAD's or an append's resource is the request's target, a creation's the `Location` its first 104 (or
    /// this response) announced, `creationLocation`. The path keys `UploadOffsetHistory`.
    public static func acknowledgement(request: RequestHead, response: ResponseHead, creationLocation: String?)
        -> (path: String, offset: Int64)?
    {
        guard response.status == 104 || (200...299).contains(response.status), let offset = reported(response)
        else { return nil }
        switch request.method {
        case .head, .patch: return (UploadRequest.path(of: request.target), offset)
        case .post, .put:
            guard let location = creationLocation ?? response.fields[UploadFields.location] else { return nil }
            return (UploadRequest.path(of: location), offset)
        default: return nil
        }
    }

    // MARK: - Fields

    /// Whether a response carries any resumable-upload field.
    private static func hasUploadFields(_ response: ResponseHead) -> Bool {
        [UploadFields.offset, "Upload-Complete", "Upload-Incomplete", UploadLimits.fieldName, UploadFields.length]
            .contains { response.fields.contains($0) }
    }

    /// A response's `Upload-Offset` when it is a valid one (nil when absent or malformed).
    private static func reported(_ response: ResponseHead) -> Int64? {
        (try? UploadFields.size(UploadFields.offset, in: response.fields)) ?? nil
    }

    /// A malformed `Upload-Offset` in `response`.
    private static func malformedOffset(_ response: ResponseHead) -> ConformanceDeviation? {
        do {
            _ = try UploadFields.size(UploadFields.offset, in: response.fields)
            return nil
        } catch {
            return .init(.malformedField, "\(error) in a \(response.status)")
        }
    }

    /// The other family's completion field in an answer to a `version` request.
    private static func completionFamily(_ answer: ResponseHead, version: InteropVersion) -> [ConformanceDeviation] {
        let other = version.completionFieldIsInverted ? "Upload-Complete" : "Upload-Incomplete"
        guard let value = answer.fields[other] else { return [] }
        return [
            .init(
                .completionField,
                "\(other): \(value) in a \(answer.status) to an \(version) request, which uses "
                    + version.completionFieldName)
        ]
    }

    /// The completion flag of a successful final response to a creation or append: it must not contradict the
    /// request; a partial request's answer must flag it through interop 7 (-01 … -08; -10 made it a SHOULD).
    private static func finalCompletion(_ response: ResponseHead, version: InteropVersion, complete: Bool)
        -> [ConformanceDeviation]
    {
        let name = version.completionFieldName
        let said: Bool?
        do {
            said = try UploadFields.completion(in: response.fields, version: version)
        } catch {
            return [.init(.malformedField, "\(error) in the final \(response.status)")]
        }
        // From interop 9 a `?1` to a request that leaves the upload incomplete is the resource's early answer.
        if let said, said != complete, !(said && version.answersEarlyAsTheResource) {
            let value = response.fields[name] ?? ""
            return [
                .init(
                    .completionValue,
                    "\(name): \(value) in the final \(response.status) to a request that "
                        + (complete ? "completes the upload" : "leaves it incomplete"))
            ]
        }
        if said == nil, !complete, version.rawValue <= 7 {
            return [
                .init(
                    .completionValue,
                    "the final \(response.status) to a partial request lacks \(name): "
                        + version.completionValue(complete: false))
            ]
        }
        return []
    }

    /// Whether two `Location` values name the same resource: the same path, and the same origin when both are
    /// absolute.
    static func samePlace(_ first: String, _ second: String) -> Bool {
        guard UploadRequest.path(of: first) == UploadRequest.path(of: second) else { return false }
        guard let one = UploadRequest.origin(of: first), let two = UploadRequest.origin(of: second) else { return true }
        return one == two
    }
}

/// What a server acknowledged of each upload across exchanges, fed in wire order: an offset lower than one it
/// acknowledged before for the same upload (offsets never decrease, draft -01 on; a server that lost bytes must
/// deactivate the upload instead), or beyond the furthest byte the upload's requests delivered, is a deviation.
public struct UploadOffsetHistory: Sendable {
    private var acknowledged: [String: Int64] = [:]
    private var delivered: [String: Int64] = [:]

    public init() {}

    /// The requests to the upload at `path` delivered its bytes up to `end`.
    public mutating func delivered(path: String, through end: Int64) {
        delivered[path] = max(delivered[path] ?? 0, end)
    }

    /// The server reported `offset` for the upload at `path` (`source` names the answer for the message).
    public mutating func acknowledged(path: String, offset: Int64, by source: String) -> [ConformanceDeviation] {
        var found: [ConformanceDeviation] = []
        if let before = acknowledged[path], offset < before {
            found.append(
                .init(.offsetDecreased, "\(source) reports offset \(offset) after the server acknowledged \(before)"))
        }
        if let end = delivered[path], offset > end {
            found.append(
                .init(.offsetBeyondData, "\(source) reports offset \(offset), but only \(end) bytes were delivered"))
        }
        acknowledged[path] = max(acknowledged[path] ?? 0, offset)
        return found
    }
}
