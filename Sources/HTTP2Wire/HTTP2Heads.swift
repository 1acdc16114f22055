import HTTPWire

/// Request and response heads as HTTP/2 header blocks and back (RFC 9113 §8.3): the start line becomes pseudo-header
/// fields, `Host` becomes `:authority`, names go to lowercase, and the connection-specific fields HTTP/2 forbids
/// (§8.2.2) are left out.
public enum HTTP2Heads {
    /// Fields that only mean something to one HTTP/1.1 connection (RFC 9113 §8.2.2); `TE` is kept when it says
    /// `trailers`.
    static let connectionSpecific: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "host",
    ]

    /// `head` as a request header block; `scheme` is the connection's (`https` over TLS).
    public static func fields(of head: RequestHead, scheme: String) -> [HTTPField] {
        var fields = [
            HTTPField(name: ":method", value: head.method.rawValue),
            HTTPField(name: ":scheme", value: scheme),
        ]
        if let host = head.fields["Host"] { fields.append(HTTPField(name: ":authority", value: host)) }
        fields.append(HTTPField(name: ":path", value: head.target))
        appendRegular(head.fields, to: &fields)
        return fields
    }

    /// `head` as a response header block (its reason phrase has no place in HTTP/2).
    public static func fields(of head: ResponseHead) -> [HTTPField] {
        var fields = [HTTPField(name: ":status", value: String(head.status))]
        appendRegular(head.fields, to: &fields)
        return fields
    }

    /// A request header block as a head of version 2.0, `:authority` as `Host` (first, as HTTP/1.1 puts it); nil
    /// when `:method` or `:path` is missing.
    public static func request(_ fields: [HTTPField]) -> RequestHead? {
        guard let method = value(":method", in: fields), let path = value(":path", in: fields) else { return nil }
        var regular = HTTPFields()
        if let authority = value(":authority", in: fields), !fields.contains(where: { $0.name == "host" }) {
            regular.append(name: "host", value: authority)
        }
        for field in fields where !field.name.hasPrefix(":") { regular.append(field) }
        return RequestHead(method: HTTPMethod(rawValue: method), target: path, version: .http2, fields: regular)
    }

    /// A response header block as a head of version 2.0 with the status's standard reason; nil without a numeric
    /// `:status`.
    public static func response(_ fields: [HTTPField]) -> ResponseHead? {
        guard let text = value(":status", in: fields), text.count == 3, let status = Int(text) else { return nil }
        var regular = HTTPFields()
        for field in fields where !field.name.hasPrefix(":") { regular.append(field) }
        return ResponseHead(
            version: .http2, status: status, reason: ResponseHead.standardReason(for: status), fields: regular)
    }

    /// The scheme a request header block names, if any.
    public static func scheme(_ fields: [HTTPField]) -> String? {
        value(":scheme", in: fields)
    }

    private static func value(_ name: String, in fields: [HTTPField]) -> String? {
        fields.first { $0.name == name }?.value
    }

    private static func appendRegular(_ source: HTTPFields, to fields: inout [HTTPField]) {
        // A field the Connection field names is connection-specific too.
        let named = Set(source.listValues(for: "Connection").map { $0.lowercased() })
        for field in source {
            let name = field.name.lowercased()
            if connectionSpecific.contains(name) || named.contains(name) { continue }
            if name == "te" && field.value.lowercased() != "trailers" { continue }
            fields.append(HTTPField(name: name, value: field.value))
        }
    }
}
