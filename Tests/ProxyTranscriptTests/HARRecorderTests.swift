import FaultEngine
import HTTPWire
import ProxyTranscript
import SquallCore
import Testing

/// The transcript as an HTTP Archive: entries when their connection closes, dates from the proxy's start, 104s and
/// faults in Squall's own fields, timings that add up, and a cut request with status 0 saying why.
struct HARRecorderTests {
    static let location = "/upload/7"

    /// A creation cut by a reset after its 104, then its resume (HEAD, PATCH) on a second connection.
    static let events: [TranscriptEvent] = {
        func at(_ milliseconds: Int, _ connection: Int, _ kind: TranscriptEvent.Kind) -> TranscriptEvent {
            TranscriptEvent(time: .milliseconds(milliseconds), connection: connection, kind: kind)
        }
        let creation = RequestHead(
            method: .post, target: "/upload?name=a%20b&x",
            fields: ["Host": "127.0.0.1:8443", "Upload-Draft-Interop-Version": "8", "Upload-Length": "1000"])
        let announce = ResponseHead(
            status: 104, reason: "Upload Resumption Supported", fields: ["Location": location])
        return [
            at(0, 0, .started(unixMicroseconds: 1_796_601_600_000_000)),
            at(1, 1, .opened(client: "127.0.0.1:5000", listener: "127.0.0.1:8443")),
            at(
                2, 1,
                .tlsEstablished(leg: .client, TLSSession(serverName: nil, alpn: nil, version: "TLSv1.3", cipher: "X"))),
            at(10, 1, .requestHead(exchange: 1, creation)),
            at(12, 1, .interimResponse(exchange: 1, announce)),
            at(15, 1, .requestBody(exchange: 1, offset: 0, length: 400, uploadOffset: 0)),
            at(20, 1, .faultFired(FiredFault(rule: "cut-at-40", action: "reset", direction: .both, offset: 400))),
            at(21, 1, .closed(side: .proxy, kind: .rst)),
            at(30, 2, .opened(client: "127.0.0.1:5001", listener: "127.0.0.1:8443")),
            at(31, 2, .requestHead(exchange: 1, RequestHead(method: .head, target: location, fields: [:]))),
            at(
                33, 2,
                .finalResponse(
                    exchange: 1, ResponseHead(status: 204, reason: "No Content", fields: ["Upload-Offset": "400"]))),
            at(40, 2, .requestHead(exchange: 2, RequestHead(method: .patch, target: location, fields: ["Host": "h"]))),
            at(50, 2, .requestBody(exchange: 2, offset: 0, length: 600, uploadOffset: 400)),
            at(
                60, 2,
                .finalResponse(
                    exchange: 2, ResponseHead(status: 200, reason: "OK", fields: ["Content-Type": "text/plain"]))),
            at(61, 2, .responseBody(exchange: 2, offset: 0, length: 5)),
        ]
    }()

    static func archive(_ events: [TranscriptEvent]) throws -> [JSONValue] {
        var recorder = HARRecorder()
        var entries: [String] = []
        for event in events { entries += recorder.add(event) }
        entries += recorder.finish()
        let text = HARRecorder.prologue(version: "9.9") + entries.joined(separator: ",") + HARRecorder.epilogue
        let log = try JSONValue.parse(text)["log"]
        #expect(log?["version"] == .string("1.2"))
        #expect(log?.value(atPath: "creator.name") == .string("squall"))
        guard case .array(let items)? = log?["entries"] else { throw HARTestError.noEntries }
        return items
    }

    @Test func aCutCreationAndItsResume() throws {
        let entries = try Self.archive(Self.events)
        #expect(entries.count == 3)
        let creation = entries[0]
        #expect(creation.value(atPath: "startedDateTime") == .string("2026-12-07T00:00:00.010Z"))
        #expect(creation.value(atPath: "request.url") == .string("https://127.0.0.1:8443/upload?name=a%20b&x"))
        #expect(creation.value(atPath: "request.queryString[0].value") == .string("a%20b"))
        #expect(creation.value(atPath: "request.queryString[1].name") == .string("x"))
        #expect(creation.value(atPath: "request.bodySize") == .integer(400))
        #expect(creation.value(atPath: "response.status") == .integer(0))
        #expect(creation.value(atPath: "_interimResponses[0].status") == .integer(104))
        #expect(creation.value(atPath: "_interimResponses[0].headers[0].value") == .string(Self.location))
        #expect(creation.value(atPath: "_interimResponses[0].time") == .integer(2))
        #expect(creation.value(atPath: "_faults[0].rule") == .string("cut-at-40"))
        #expect(creation.value(atPath: "_faults[0].offset") == .integer(400))
        #expect(
            creation.value(atPath: "_error")
                == .string("no response: the connection was reset (RST) by the proxy (fault cut-at-40: reset)"))
        #expect(creation.value(atPath: "_uploadRanges[0][1]") == .integer(400))
        // send: 10 → 15 ms; wait: until the close at 21 ms.
        #expect(creation.value(atPath: "timings.send") == .integer(5))
        #expect(creation.value(atPath: "timings.wait") == .integer(6))
        #expect(creation.value(atPath: "time") == .integer(11))

        let patch = entries[2]
        #expect(patch.value(atPath: "request.url") == .string("http://h\(Self.location)"))
        #expect(patch.value(atPath: "response.status") == .integer(200))
        #expect(patch.value(atPath: "response.content.mimeType") == .string("text/plain"))
        #expect(patch.value(atPath: "response.bodySize") == .integer(5))
        #expect(patch.value(atPath: "timings.send") == .integer(10))
        #expect(patch.value(atPath: "timings.wait") == .integer(10))
        #expect(patch.value(atPath: "timings.receive") == .integer(1))
        #expect(patch.value(atPath: "_faults") == .array([]))
        #expect(patch.value(atPath: "_error") == nil)
        // The HEAD, on a connection with no Host field and no TLS: the listener's address, http.
        #expect(entries[1].value(atPath: "request.url") == .string("http://127.0.0.1:8443\(Self.location)"))
    }

    /// Entries come out when their connection closes; `finish` gives the rest, saying they were open.
    @Test func entriesAtTheClose() {
        var recorder = HARRecorder()
        var completed: [[String]] = []
        for event in Self.events { completed.append(recorder.add(event)) }
        #expect(completed.map(\.count) == [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0])
        let open = recorder.finish()
        #expect(open.count == 2)
        #expect(open[0].contains("\"status\":204"))
        #expect(recorder.finish().isEmpty)
    }

    /// A negative control of the date: without the `started` event the entries date from 1970.
    @Test func datesNeedTheStart() throws {
        let entries = try Self.archive(Array(Self.events.dropFirst()))
        #expect(entries[0].value(atPath: "startedDateTime") == .string("1970-01-01T00:00:00.010Z"))
    }

    @Test func millisecondsWithThreeDecimals() {
        #expect(HARRecorder.milliseconds(.microseconds(12_345)) == "12.345")
        #expect(HARRecorder.milliseconds(.microseconds(7)) == "0.007")
        #expect(HARRecorder.milliseconds(.microseconds(-500)) == "-0.500")
        #expect(HARRecorder.milliseconds(.nanoseconds(999)) == "0.000")
    }
}

enum HARTestError: Error {
    case noEntries
}
