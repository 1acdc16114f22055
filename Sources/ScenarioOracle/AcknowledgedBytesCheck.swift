import HTTPWire
import ProxyTranscript
import ResumableUpload

/// Checks, from the proxy's transcript, that no byte the server acknowledged is lost: for each upload resource,
/// the offset the server acknowledged (a 104's `Upload-Offset` to its creation or an append, a final response's
/// `Upload-Offset`, a HEAD's, a 409's) never goes down in a later answer of the server for it, and the resource is not
/// answered 404 or 410 once it had acknowledged bytes (a server that forgot it, say across a restart); and no offset
/// the server states passes the bytes of that upload the proxy carried to it (a server acknowledging bytes it never
/// received). Answers the proxy made itself (`respond`, `expire-auth`) are not the server's and are not judged.
/// The carried bytes are counted as the proxy read them from the client, so a cut can only overstate them: the
/// last check may miss a lie, never invent one.
///
/// Resources are keyed by `UploadRequest.path(of:)` of the creation's `Location` (a 104's or the final
/// response's) and of later request targets, as `AppendOffsetCheck` keys them.
struct AcknowledgedBytesCheck {
    private(set) var problems: [String] = []
    /// Resources with acknowledged bytes.
    var resources: Int { acknowledged.count }

    private var requests: [ExchangeKey: RequestHead] = [:]
    /// The resource a creation's exchange named in its `Location`.
    private var created: [ExchangeKey: String] = [:]
    private var answeredByProxy: Set<ExchangeKey> = []
    /// The end (absolute upload offset) of the body bytes each exchange carried.
    private var carried: [ExchangeKey: Int64] = [:]
    /// Exchanges whose body bytes had no known upload offset: their resources' carried bytes are not judged.
    private var uncounted: Set<ExchangeKey> = []
    /// The most the server acknowledged per resource, and which answer said it.
    private var acknowledged: [String: (offset: Int64, by: String)] = [:]

    init(_ transcript: Transcript) {
        for event in transcript.events {
            observe(event)
        }
    }

    private mutating func observe(_ event: TranscriptEvent) {
        switch event.kind {
        case .requestHead(let exchange, let head):
            requests[ExchangeKey(connection: event.connection, exchange: exchange)] = head
        case .requestBody(let exchange, _, let length, let uploadOffset?):
            let key = ExchangeKey(connection: event.connection, exchange: exchange)
            carried[key] = max(carried[key] ?? 0, uploadOffset + length)
        case .requestBody(let exchange, _, _, nil):
            uncounted.insert(ExchangeKey(connection: event.connection, exchange: exchange))
        case .proxyAnswered(let exchange):
            answeredByProxy.insert(ExchangeKey(connection: event.connection, exchange: exchange))
        case .interimResponse(let exchange, let response):
            answer(response, ExchangeKey(connection: event.connection, exchange: exchange), interim: true)
        case .finalResponse(let exchange, let response):
            answer(response, ExchangeKey(connection: event.connection, exchange: exchange), interim: false)
        default:
            break
        }
    }

    /// The most bytes of `resource` any exchange carried (its creation's, its appends'); nil when none was seen.
    private func carriedBytes(of resource: String) -> Int64? {
        func target(_ key: ExchangeKey) -> String? {
            created[key] ?? requests[key].map { UploadRequest.path(of: $0.target) }
        }
        if uncounted.contains(where: { target($0) == resource }) { return nil }
        var most: Int64?
        for (key, end) in carried where target(key) == resource {
            most = max(most ?? 0, end)
        }
        return most
    }

    private mutating func answer(_ response: ResponseHead, _ key: ExchangeKey, interim: Bool) {
        guard let request = requests[key], !answeredByProxy.contains(key) else { return }
        let facts = UploadResponseFacts(response, requestVersion: nil)
        if let location = facts.resourcePath { created[key] = location }
        let resource = created[key] ?? UploadRequest.path(of: request.target)
        let by = "conn \(key.connection) #\(key.exchange) \(request.method) → \(response.status)"
        let known = acknowledged[resource]
        if !interim, response.status == 404 || response.status == 410, let known {
            problems.append(
                "\(by) for \(resource): the server forgot an upload after acknowledging \(known.offset) bytes "
                    + "(\(known.by))")
            return
        }
        // A 409 states the server's offset too (the append's was not it).
        let states = interim ? response.status == 104 : (200..<300).contains(response.status) || response.status == 409
        guard states, let offset = facts.offset else { return }
        if let most = carriedBytes(of: resource), offset > most {
            problems.append(
                "\(by) for \(resource): Upload-Offset \(offset), but the proxy carried only \(most) bytes of that upload "
                    + "to the server: \(offset - most) bytes acknowledged that it never received")
        }
        if let known, offset < known.offset {
            problems.append(
                "\(by) for \(resource): Upload-Offset \(offset) after the server had acknowledged \(known.offset) "
                    + "(\(known.by)): \(known.offset - offset) acknowledged bytes lost")
        }
        if offset > (known?.offset ?? -1) { acknowledged[resource] = (offset, by) }
    }
}
