import HTTPWire
import ProxyTranscript
import ResumableUpload

/// Checks, from the proxy's transcript, that the server kept exactly the bytes delivered before each cut: for
/// every `reset` fired at an upload offset, the first HEAD final response on that upload resource after it
/// reports `Upload-Offset` equal to the cut's offset (the proxy forwards the body up to the cut and resets only
/// once the server's kernel acknowledged those bytes).
///
/// The cut's upload resource is the request target's path for a PATCH, and the `Location` of a creation's 104 or
/// final response for a POST (keyed by path, as `AppendOffsetCheck.resource`). A cut that no HEAD on its resource
/// follows is a problem too: nothing showed what the server kept.
///
/// A reset fired after its exchange's final response is not a cut at an upload offset: its offset counts response
/// body bytes (an `after-response-bytes` trigger, `FiredFault.offset`), so it is not judged.
struct CutOffsetCheck {
    /// The resets at an offset judged.
    private(set) var cuts = 0
    /// One line per cut whose HEAD reported another offset, or that no HEAD followed.
    private(set) var problems: [String] = []

    private struct Cut {
        var rule: String
        var offset: Int64
        var request: String
        var exchange: Key
        /// The index of the fault event, to find the HEAD after it.
        var index: Int
    }

    private struct Key: Hashable {
        var connection: Int
        var exchange: Int
    }

    init(_ transcript: Transcript) {
        var heads: [Key: RequestHead] = [:]
        var current: [Int: Key] = [:]
        var resources: [Key: String] = [:]
        /// The exchanges whose final response the transcript holds.
        var answered = Set<Key>()
        var cutList: [Cut] = []
        /// HEAD answers: event index, resource, reported offset, evidence text.
        var answers: [(index: Int, resource: String, offset: Int64?, by: String)] = []
        for (index, event) in transcript.events.enumerated() {
            switch event.kind {
            case .requestHead(let exchange, let head):
                let key = Key(connection: event.connection, exchange: exchange)
                heads[key] = head
                current[event.connection] = key
                if head.method != .post { resources[key] = AppendOffsetCheck.resource(head.target) }
            case .interimResponse(let exchange, let response), .finalResponse(let exchange, let response):
                let key = Key(connection: event.connection, exchange: exchange)
                if case .finalResponse = event.kind { answered.insert(key) }
                if let head = heads[key], head.method == .post,
                    let resource = UploadResponseFacts(response, requestVersion: UploadRequestFacts(head).version)
                        .resourcePath
                {
                    resources[key] = resource
                }
                if case .finalResponse = event.kind, let head = heads[key], head.method == .head {
                    answers.append(
                        (
                            index, AppendOffsetCheck.resource(head.target), AppendOffsetCheck.offset(response),
                            Evidence.request(head, connection: key.connection, exchange: key.exchange)
                        ))
                }
            case .faultFired(let fault):
                guard fault.action == "reset", let offset = fault.offset, let key = current[event.connection],
                    let head = heads[key], !answered.contains(key)
                else { continue }
                let request = Evidence.request(head, connection: key.connection, exchange: key.exchange)
                cutList.append(Cut(rule: fault.rule, offset: offset, request: request, exchange: key, index: index))
            default:
                continue
            }
        }
        cuts = cutList.count
        for cut in cutList {
            let what = "\(cut.rule) at \(cut.offset) (\(cut.request))"
            guard let resource = resources[cut.exchange] else {
                problems.append("\(what): its upload resource was never announced, so no HEAD could report it")
                continue
            }
            // The first HEAD after the cut that reported an offset (a 401 to an expired token reports none).
            let after = answers.filter { $0.index > cut.index && $0.resource == resource }
            guard let answer = after.first(where: { $0.offset != nil }), let reported = answer.offset else {
                let tried = after.isEmpty ? "" : " (\(after.count) HEADs answered without an Upload-Offset)"
                problems.append("\(what): no HEAD on \(resource) after the cut reported the server's offset\(tried)")
                continue
            }
            if reported != cut.offset {
                let difference = cut.offset - reported
                let lost = difference > 0 ? "\(difference) bytes lost" : "\(-difference) bytes more than delivered"
                problems.append("\(what): \(answer.by) reported \(reported): \(lost)")
            }
        }
    }
}
