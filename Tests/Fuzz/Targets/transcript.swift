import ProxyTranscript

/// The proxy transcript's JSON Lines reader: the input is a transcript file, one event per line. Checked:
///
/// - every line `TranscriptEvent(jsonLine:)` accepts is written back by `jsonLine()` as a line that reads as the
///   same event and writes as the same text;
/// - a `Transcript` of the accepted events (capped by count, by bytes, both or neither, as derived from the input)
///   keeps the newest event, stays within its caps, counts every event, and its `keptBytes` are its events'
///   footprints; it answers every query:
///   exchanges per connection, connections, faults fired and unresolved, closes, events since a position, JSON
///   Lines (one per kept event).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTranscript(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    var choices = DerivedChoices(bytes)
    var transcript = Transcript(
        cap: choices.flag() ? nil : 1 + choices.number(below: 8),
        byteCap: choices.flag() ? nil : 1 + choices.number(below: 4096))
    var appended = 0
    for line in bytes.split(separator: UInt8(ascii: "\n")) {
        guard let event = try? TranscriptEvent(jsonLine: String(decoding: line, as: UTF8.self)) else { continue }
        let written = event.jsonLine()
        let reread = try? TranscriptEvent(jsonLine: written)
        invariant(reread == event, "\(event) is written as \(written), which reads as \(String(describing: reread))")
        invariant(reread?.jsonLine() == written, "\(written) is not written back the same")
        transcript.append(event)
        appended += 1
        let kept = transcript.events
        invariant(
            transcript.keptBytes == kept.reduce(0) { $0 + $1.footprint }, "keptBytes is not the kept footprints")
        invariant(kept.last == event, "the newest event was not kept")
        invariant(transcript.appendedCount == appended, "\(transcript.appendedCount) counted of \(appended)")
        if let byteCap = transcript.byteCap {
            invariant(kept.count == 1 || transcript.keptBytes <= byteCap, "over the byte cap")
        }
        if let cap = transcript.cap { invariant(kept.count <= cap, "over the cap") }
    }
    for connection in transcript.connections {
        let exchanges = transcript.exchanges(connection: connection)
        invariant(exchanges.allSatisfy { $0.connection == connection }, "exchanges of another connection")
    }
    _ = transcript.faultsFired()
    _ = transcript.faultsUnresolved()
    _ = transcript.closes()
    _ = transcript.events(since: choices.number(below: transcript.appendedCount + 2) - 1)
    let lines = transcript.jsonLines().split(separator: "\n", omittingEmptySubsequences: false)
    invariant(lines.count == transcript.count + 1, "\(lines.count - 1) lines for \(transcript.count) events")
    return 0
}
