import HTTP2Wire
import HTTPWire

extension TranscriptEvent {
    /// The event as one JSON Lines record (RFC 8259 object, no trailing newline).
    ///
    /// Every line starts with `t_us` (the time in whole microseconds since the proxy started, truncated), `conn`
    /// and `event`; each kind then has a fixed set of keys in a fixed order, `null` standing for an absent value.
    /// Header fields keep their order and case as `[[name, value], …]`. Strings are escaped per RFC 8259 §7
    /// (quote, backslash and U+0000…U+001F); non-ASCII text is written as UTF-8. One line per kind:
    ///
    /// ```
    /// {"t_us":0,"conn":0,"event":"start","unix_us":1796608800123456}
    /// {"t_us":0,"conn":1,"event":"open","client":"127.0.0.1:50312","listener":"127.0.0.1:8443"}
    /// {"t_us":812,"conn":1,"event":"tls","leg":"client","sni":"localhost","alpn":"http/1.1","version":"TLSv1.3","cipher":"TLS_AES_128_GCM_SHA256"}
    /// {"t_us":950,"conn":1,"event":"tls_failed","leg":"upstream","reason":"certificate verify failed"}
    /// {"t_us":1204,"conn":1,"event":"request","exchange":1,"method":"PATCH","target":"/uploads/7","version":"HTTP/1.1","fields":[["Host","localhost"],["Upload-Offset","3145728"]]}
    /// {"t_us":1290,"conn":1,"event":"request_body","exchange":1,"offset":0,"length":65536,"upload_offset":3145728}
    /// {"t_us":1350,"conn":1,"event":"request_written","exchange":1,"through":65536,"upload_through":3211264}
    /// {"t_us":1291,"conn":1,"event":"request_body_dropped","exchange":1,"offset":65536,"length":4096,"upload_offset":3211264}
    /// {"t_us":1205,"conn":1,"event":"request_forwarded","exchange":1,"method":"PATCH","target":"/uploads/7","version":"HTTP/1.1","fields":[["Host","localhost"]]}
    /// {"t_us":1302,"conn":1,"event":"interim","exchange":1,"version":"HTTP/1.1","status":104,"reason":"Upload Resumption Supported","fields":[["Location","/uploads/7"]]}
    /// {"t_us":9099,"conn":1,"event":"proxy_answer","exchange":1}
    /// {"t_us":9100,"conn":1,"event":"response","exchange":1,"version":"HTTP/1.1","status":204,"reason":"No Content","fields":[["Upload-Offset","8388608"]]}
    /// {"t_us":9101,"conn":1,"event":"location_rewritten","exchange":1,"from":"https://up.example/u/7","to":"https://127.0.0.1:8443/u/7"}
    /// {"t_us":9150,"conn":1,"event":"response_body","exchange":1,"offset":0,"length":512}
    /// {"t_us":9400,"conn":1,"event":"close","side":"client","kind":"fin"}
    /// {"t_us":5021,"conn":1,"event":"fault","rule":"cut-at-40%","action":"reset","direction":"upstream","offset":3355443,"decided_us":4870}
    /// {"t_us":1295,"conn":2,"event":"fault_unresolved","rule":"cut-at-70%","exchange":1,"reason":"70% of an upload whose length the proxy never learned (PATCH /upload/7)"}
    /// {"t_us":1310,"conn":1,"event":"announcement_wait","exchange":1,"rule":"cut-at-30%","upload_offset":314572}
    /// {"t_us":2790,"conn":1,"event":"announcement_wait_end","exchange":1,"outcome":"announced"}
    /// {"t_us":1402,"conn":1,"event":"announcement_withheld","exchange":1,"rule":"cut-early"}
    /// {"t_us":2788,"conn":1,"event":"client_announcement","exchange":1,"location":"/upload/7","outcome":"written","rule":null}
    /// {"t_us":6004,"conn":1,"event":"client_announcement","exchange":1,"location":"/upload/7","outcome":"stripped","rule":"no-104"}
    /// ```
    ///
    /// `request_body` is what was forwarded to the upstream, `request_body_dropped` what was read from the client
    /// and not forwarded (cut by a fault, or answered by the proxy). A `fault`'s `t_us` is when its action reached
    /// the wire and `decided_us` when the engine decided it (see `FiredFault`). `request_body.upload_offset`,
    /// `request_body_dropped.upload_offset`, `fault.offset` and `fault.decided_us` may be `null`; so may `tls.sni`
    /// and `tls.alpn`.
    /// `init(jsonLine:)` reads this back.
    public func jsonLine() -> String {
        var writer = JSONObjectWriter()
        writer.add("t_us", Self.microseconds(time))
        writer.add("conn", connection)
        writer.add("event", kind.eventName)
        kind.write(to: &writer)
        return writer.line
    }

    /// Whole microseconds in `duration`, truncated toward zero.
    static func microseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }
}

extension TranscriptEvent.Kind {
    /// The `event` value in JSON Lines.
    var eventName: String {
        switch self {
        case .started: "start"
        case .opened: "open"
        case .tlsEstablished: "tls"
        case .tlsFailed: "tls_failed"
        case .requestHead: "request"
        case .requestBody: "request_body"
        case .requestBodyDropped: "request_body_dropped"
        case .requestWritten: "request_written"
        case .requestForwarded: "request_forwarded"
        case .interimResponse: "interim"
        case .proxyAnswered: "proxy_answer"
        case .finalResponse: "response"
        case .locationRewritten: "location_rewritten"
        case .responseBody: "response_body"
        case .closed: "close"
        case .faultFired: "fault"
        case .faultUnresolved: "fault_unresolved"
        case .announcementAwaited: "announcement_wait"
        case .announcementWaitEnded: "announcement_wait_end"
        case .announcementWithheld: "announcement_withheld"
        case .clientAnnouncement: "client_announcement"
        case .streamReset: "stream_reset"
        case .goaway: "goaway"
        case .http2Stream: "h2_stream"
        }
    }

    fileprivate func write(to writer: inout JSONObjectWriter) {
        switch self {
        case .started(let unixMicroseconds):
            writer.add("unix_us", unixMicroseconds)
        case .opened(let client, let listener):
            writer.add("client", client)
            writer.add("listener", listener)
        case .tlsEstablished(let leg, let session):
            writer.add("leg", leg.rawValue)
            writer.add("sni", session.serverName)
            writer.add("alpn", session.alpn)
            writer.add("version", session.version)
            writer.add("cipher", session.cipher)
        case .tlsFailed(let leg, let reason):
            writer.add("leg", leg.rawValue)
            writer.add("reason", reason)
        case .requestHead(let exchange, let head), .requestForwarded(let exchange, let head):
            writer.add("exchange", exchange)
            writer.add("method", head.method.rawValue)
            writer.add("target", head.target)
            writer.add("version", head.version.description)
            writer.add("fields", pairs: head.fields.map { ($0.name, $0.value) })
        case .requestBody(let exchange, let offset, let length, let uploadOffset),
            .requestBodyDropped(let exchange, let offset, let length, let uploadOffset):
            writer.add("exchange", exchange)
            writer.add("offset", offset)
            writer.add("length", length)
            writer.add("upload_offset", uploadOffset)
        case .interimResponse(let exchange, let head), .finalResponse(let exchange, let head):
            writer.add("exchange", exchange)
            writer.add("version", head.version.description)
            writer.add("status", head.status)
            writer.add("reason", head.reason)
            writer.add("fields", pairs: head.fields.map { ($0.name, $0.value) })
        case .requestWritten(let exchange, let through, let uploadThrough):
            writer.add("exchange", exchange)
            writer.add("through", through)
            writer.add("upload_through", uploadThrough)
        case .proxyAnswered(let exchange):
            writer.add("exchange", exchange)
        case .locationRewritten(let exchange, let from, let to):
            writer.add("exchange", exchange)
            writer.add("from", from)
            writer.add("to", to)
        case .responseBody(let exchange, let offset, let length):
            writer.add("exchange", exchange)
            writer.add("offset", offset)
            writer.add("length", length)
        case .closed(let side, let kind):
            writer.add("side", side.rawValue)
            writer.add("kind", kind.rawValue)
        case .faultFired(let fault):
            writer.add("rule", fault.rule)
            writer.add("action", fault.action)
            writer.add("direction", fault.direction.rawValue)
            writer.add("offset", fault.offset)
            writer.add("decided_us", fault.decided.map(TranscriptEvent.microseconds))
        case .faultUnresolved(let rule, let exchange, let reason):
            writer.add("rule", rule)
            writer.add("exchange", exchange)
            writer.add("reason", reason)
        case .announcementAwaited(let exchange, let rule, let uploadOffset):
            writer.add("exchange", exchange)
            writer.add("rule", rule)
            writer.add("upload_offset", uploadOffset)
        case .announcementWaitEnded(let exchange, let outcome):
            writer.add("exchange", exchange)
            writer.add("outcome", outcome.rawValue)
        case .announcementWithheld(let exchange, let rule):
            writer.add("exchange", exchange)
            writer.add("rule", rule)
        case .clientAnnouncement(let exchange, let location, let outcome):
            writer.add("exchange", exchange)
            writer.add("location", location)
            writer.add("outcome", outcome.name)
            writer.add("rule", outcome.rule)
        case .streamReset(let side, let code):
            writer.add("side", side.rawValue)
            writer.add("code", HTTP2ErrorCode(rawValue: code).description)
        case .goaway(let lastStream, let code):
            writer.add("last_stream", Int(lastStream))
            writer.add("code", HTTP2ErrorCode(rawValue: code).description)
        case .http2Stream(let connection, let stream):
            writer.add("parent", connection)
            writer.add("stream", Int(stream))
        }
    }
}
