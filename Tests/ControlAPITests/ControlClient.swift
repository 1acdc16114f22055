import ControlAPI
import Foundation
import HTTPWire
import Testing

/// Drives a `ControlAPIHandler` as a client would, and parses its JSON replies.
struct ControlClient {
    let handler: ControlAPIHandler
    var token: String?

    init(_ handler: ControlAPIHandler = ControlAPIHandler(), token: String? = nil) {
        self.handler = handler
        self.token = token
    }

    /// One request; `json` is sent as the body.
    @discardableResult
    func send(_ method: HTTPMethod, _ target: String, _ json: String = "") -> ControlReply {
        var fields: HTTPFields = [:]
        if let token { fields.append(name: "Authorization", value: "Bearer \(token)") }
        let (head, body) = handler.handle(
            RequestHead(method: method, target: target, fields: fields), body: Array(json.utf8))
        return ControlReply(head: head, body: body)
    }

    /// Creates `name` listening on `127.0.0.1:0` and forwarding to `127.0.0.1:9000`.
    func createProxy(_ name: String) {
        let reply = send(.post, "/proxies", #"{"name": "\#(name)", "upstream": "127.0.0.1:9000"}"#)
        #expect(reply.status == 201)
    }
}

/// A response with its body parsed as JSON.
struct ControlReply {
    let head: ResponseHead
    let body: [UInt8]

    var status: Int { head.status }

    var json: Any? { try? JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed]) }

    var object: [String: Any] { json as? [String: Any] ?? [:] }

    var array: [[String: Any]] { json as? [[String: Any]] ?? [] }

    /// Toxiproxy's error shape: the message, after checking `status` repeats the HTTP status.
    var error: String? {
        guard (object["status"] as? NSNumber)?.intValue == status else { return nil }
        return object["error"] as? String
    }
}

/// A proxy's JSON fields, for comparing in one `#expect`.
struct ProxyView: Equatable {
    var name: String?
    var listen: String?
    var upstream: String?
    var enabled: Bool?
    var toxicNames: [String]

    init(_ json: [String: Any]) {
        name = json["name"] as? String
        listen = json["listen"] as? String
        upstream = json["upstream"] as? String
        enabled = json["enabled"] as? Bool
        toxicNames = (json["toxics"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
    }

    init(_ name: String, listen: String = "127.0.0.1:0", upstream: String, enabled: Bool = true, toxics: [String] = [])
    {
        self.name = name
        self.listen = listen
        self.upstream = upstream
        self.enabled = enabled
        toxicNames = toxics
    }
}

/// A toxic's JSON fields, for comparing in one `#expect`.
struct ToxicView: Equatable {
    var name: String?
    var type: String?
    var stream: String?
    var toxicity: Double?
    var attributes: [String: Int64]

    init(_ json: [String: Any]) {
        name = json["name"] as? String
        type = json["type"] as? String
        stream = json["stream"] as? String
        toxicity = (json["toxicity"] as? NSNumber)?.doubleValue
        attributes = (json["attributes"] as? [String: Any] ?? [:]).compactMapValues { ($0 as? NSNumber)?.int64Value }
    }

    init(
        _ name: String, type: String, stream: String = "downstream", toxicity: Double = 1, _ attributes: [String: Int64]
    ) {
        self.name = name
        self.type = type
        self.stream = stream
        self.toxicity = toxicity
        self.attributes = attributes
    }
}
