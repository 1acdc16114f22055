import FaultEngine
import HTTPWire
import ProxyTranscript
import Testing

struct TranscriptEventTests {
    static let nasty = "q\"b\\s/n\nr\rt\tz\u{0}c\u{1}\u{1F}\u{7F} é 中 🦩 \u{2028}"

    static let kinds: [TranscriptEvent.Kind] = [
        .started(unixMicroseconds: 1_796_608_800_123_456),
        .opened(client: "127.0.0.1:50312", listener: "[::1]:8443"),
        .tlsEstablished(
            leg: .client,
            TLSSession(serverName: "localhost", alpn: "http/1.1", version: "TLSv1.3", cipher: "TLS_AES_128_GCM_SHA256")),
        .tlsEstablished(leg: .upstream, TLSSession(serverName: nil, alpn: nil, version: "TLSv1.2", cipher: "X")),
        .tlsFailed(leg: .upstream, reason: nasty),
        .requestHead(
            exchange: 1,
            RequestHead(
                method: .patch, target: "/uploads/7?x=\"1\"",
                fields: ["Host": "localhost", "X-Nasty": nasty, "host": "again", "Empty": ""])),
        .requestHead(exchange: 2, RequestHead(method: "BREW", target: "*", version: .http10)),
        .requestBody(exchange: 1, offset: 0, length: 65536, uploadOffset: 3_145_728),
        .requestBody(exchange: 1, offset: 65536, length: 1, uploadOffset: nil),
        .requestWritten(exchange: 1, through: 65536, uploadThrough: 3_211_264),
        .requestWritten(exchange: 2, through: 1, uploadThrough: nil),
        .interimResponse(
            exchange: 1, ResponseHead(status: 104, reason: "Upload Resumption Supported", fields: ["Location": "/u/7"])),
        .finalResponse(exchange: 3, ResponseHead(status: 204, reason: nasty, fields: [nasty: nasty])),
        .responseBody(exchange: 3, offset: 12, length: 0),
        .closed(side: .client, kind: .fin),
        .closed(side: .upstream, kind: .rst),
        .closed(side: .proxy, kind: .rst),
        .faultFired(FiredFault(rule: nasty, action: "reset", direction: .upstream, offset: 3_355_443)),
        .faultFired(FiredFault(rule: "slow", action: "latency", direction: .both)),
        .faultFired(
            FiredFault(rule: "cut", action: "reset", direction: .both, offset: 7, decided: .microseconds(1_234_000))),
        .requestBodyDropped(exchange: 1, offset: 65536, length: 4096, uploadOffset: 3_211_264),
        .requestBodyDropped(exchange: 2, offset: 0, length: 1, uploadOffset: nil),
        .faultUnresolved(rule: nasty, exchange: 3, reason: "70% of an upload whose length the proxy never learned"),
        .requestForwarded(exchange: 1, RequestHead(method: .patch, target: "/u/7", fields: ["X-Nasty": nasty])),
        .proxyAnswered(exchange: 4),
        .locationRewritten(exchange: 2, from: "https://up.example/u/7", to: "https://127.0.0.1:8443/u/7\(nasty)"),
    ]

    @Test(arguments: kinds)
    func roundTripsEveryKind(kind: TranscriptEvent.Kind) throws {
        let event = TranscriptEvent(time: .microseconds(1_234_567), connection: 42, kind: kind)
        let line = event.jsonLine()
        #expect(!line.contains("\n"))
        #expect(!line.contains("\r"))
        #expect(!line.unicodeScalars.contains("\u{0}"))
        #expect(try TranscriptEvent(jsonLine: line) == event)
    }

    @Test func writesKeysInAFixedOrder() {
        let request = TranscriptEvent(
            time: .milliseconds(2), connection: 1,
            kind: .requestHead(exchange: 1, RequestHead(method: .patch, target: "/u", fields: ["B": "2", "A": "1"])))
        #expect(
            request.jsonLine()
                == #"{"t_us":2000,"conn":1,"event":"request","exchange":1,"method":"PATCH","target":"/u","#
                + #""version":"HTTP/1.1","fields":[["B","2"],["A","1"]]}"#)
        let body = TranscriptEvent(
            time: .zero, connection: 3, kind: .requestBody(exchange: 2, offset: 5, length: 6, uploadOffset: nil))
        #expect(
            body.jsonLine()
                == #"{"t_us":0,"conn":3,"event":"request_body","exchange":2,"offset":5,"length":6,"upload_offset":null}"#
        )
        let dropped = TranscriptEvent(
            time: .zero, connection: 3, kind: .requestBodyDropped(exchange: 2, offset: 5, length: 6, uploadOffset: 9))
        #expect(
            dropped.jsonLine()
                == #"{"t_us":0,"conn":3,"event":"request_body_dropped","exchange":2,"offset":5,"length":6,"upload_offset":9}"#
        )
        let rewritten = TranscriptEvent(
            time: .zero, connection: 3, kind: .locationRewritten(exchange: 2, from: "https://a/u", to: "http://b/u"))
        #expect(
            rewritten.jsonLine()
                == #"{"t_us":0,"conn":3,"event":"location_rewritten","exchange":2,"from":"https://a/u","to":"http://b/u"}"#
        )
        let answered = TranscriptEvent(time: .zero, connection: 3, kind: .proxyAnswered(exchange: 2))
        #expect(answered.jsonLine() == #"{"t_us":0,"conn":3,"event":"proxy_answer","exchange":2}"#)
        let unresolved = TranscriptEvent(
            time: .zero, connection: 3, kind: .faultUnresolved(rule: "cut", exchange: 2, reason: "why"))
        #expect(
            unresolved.jsonLine()
                == #"{"t_us":0,"conn":3,"event":"fault_unresolved","rule":"cut","exchange":2,"reason":"why"}"#)
        let tls = TranscriptEvent(
            time: .seconds(1), connection: 1,
            kind: .tlsEstablished(leg: .client, TLSSession(serverName: "a", alpn: nil, version: "v", cipher: "c")))
        #expect(
            tls.jsonLine()
                == #"{"t_us":1000000,"conn":1,"event":"tls","leg":"client","sni":"a","alpn":null,"version":"v","cipher":"c"}"#
        )
    }

    @Test func escapesStringsPerRFC8259() {
        let event = TranscriptEvent(
            time: .zero, connection: 1, kind: .tlsFailed(leg: .client, reason: "\"\\/\u{8}\u{C}\n\r\t\u{0}\u{1B}é🦩"))
        #expect(
            event.jsonLine()
                == #"{"t_us":0,"conn":1,"event":"tls_failed","leg":"client","reason":"\"\\/\b\f\n\r\t\u0000\u001bé🦩"}"#)
    }

    @Test func readsEscapesTheWriterDoesNotUse() throws {
        let line = #"{"t_us":0,"conn":1,"event":"tls_failed","leg":"client","reason":"\/\u00e9\ud83e\udda9\u0041"}"#
        let event = try TranscriptEvent(jsonLine: line)
        #expect(event.kind == .tlsFailed(leg: .client, reason: "/é🦩A"))
    }

    @Test func acceptsWhitespaceAndAnyKeyOrder() throws {
        let line = " { \"kind\" : \"rst\" ,\"side\":\"proxy\", \"event\":\"close\",\"conn\":7,\"t_us\":15 }\t"
        let event = try TranscriptEvent(jsonLine: line)
        #expect(
            event == TranscriptEvent(time: .microseconds(15), connection: 7, kind: .closed(side: .proxy, kind: .rst)))
    }

    @Test func truncatesTimesToWholeMicroseconds() throws {
        let event = TranscriptEvent(time: .nanoseconds(1_999), connection: 1, kind: .closed(side: .client, kind: .fin))
        #expect(event.jsonLine().hasPrefix(#"{"t_us":1,"#))
        #expect(try TranscriptEvent(jsonLine: event.jsonLine()).time == .microseconds(1))
        let late = TranscriptEvent(
            time: .seconds(86_400 * 365), connection: 1, kind: .closed(side: .client, kind: .fin))
        #expect(late.jsonLine().hasPrefix(#"{"t_us":31536000000000,"#))
    }

    @Test func recordsAFaultDecision() {
        let decision = FaultDecision(
            rule: "cut", connection: 9, action: .stall(duration: nil, thenClose: false), direction: .downstream,
            afterBytes: 10, offset: 4096, time: .milliseconds(7))
        let event = TranscriptEvent(fault: decision)
        #expect(event.time == .milliseconds(7))
        #expect(event.connection == 9)
        #expect(
            event.kind
                == .faultFired(
                    FiredFault(
                        rule: "cut", action: "stall", direction: .downstream, offset: 4096, decided: .milliseconds(7))))
        #expect(
            event.jsonLine()
                == #"{"t_us":7000,"conn":9,"event":"fault","rule":"cut","action":"stall","direction":"downstream","offset":4096,"decided_us":7000}"#
        )
    }
}
