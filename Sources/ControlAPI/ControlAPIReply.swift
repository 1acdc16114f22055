import Foundation
import HTTPWire

/// A control-API response before it is put on the wire: a status and, unless 204, a body (JSON unless told
/// otherwise).
struct ControlAPIReply: Sendable {
    var status: Int
    var body: [UInt8]
    var contentType = "application/json"
    var fields: HTTPFields = [:]
    /// For the head of an event stream: the transcript index it starts from. Its body is written as the transcript
    /// grows, until the connection closes, so the head has no `Content-Length`.
    var eventStreamFrom: Int?

    /// A reply with `value` encoded as JSON (sorted keys, so the output is stable).
    init(status: Int = 200, _ value: some Encodable) {
        self.status = status
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding Strings, Bools, integers and finite Doubles cannot fail.
        body = Array((try? encoder.encode(value)) ?? Data("{}".utf8))
    }

    /// A 200 reply with a text body of another type (Prometheus text, JSON Lines).
    init(text: String, contentType: String, fields: HTTPFields = [:]) {
        self.status = 200
        self.body = Array(text.utf8)
        self.contentType = contentType
        self.fields = fields
    }

    /// 204 No Content.
    static let noContent = ControlAPIReply(status: 204, body: [])

    private init(status: Int, body: [UInt8]) {
        self.status = status
        self.body = body
    }

    /// Toxiproxy's error shape, `{"error": "...", "status": N}`, with `WWW-Authenticate` on a 401 and `Allow` on a
    /// 405.
    init(error: ControlAPIError, challenge: String? = nil) {
        self.init(status: error.status, ErrorBody(error: error.detail, status: error.status))
        if let challenge { fields.append(name: "WWW-Authenticate", value: challenge) }
        if !error.allowedMethods.isEmpty {
            fields.append(name: "Allow", value: error.allowedMethods.joined(separator: ", "))
        }
    }

    /// The response head and body; a 204 carries neither body nor `Content-Length` (RFC 9110 §8.6).
    func encoded() -> (ResponseHead, [UInt8]) {
        var fields = fields
        if status != 204 {
            fields.append(name: "Content-Type", value: contentType)
            if eventStreamFrom == nil {
                fields.append(name: "Content-Length", value: String(body.count))
            }
        }
        return (ResponseHead(status: status, reason: ResponseHead.standardReason(for: status), fields: fields), body)
    }

    private struct ErrorBody: Encodable {
        var error: String
        var status: Int
    }
}
