import FaultEngine
import HTTPWire
import ProxyTranscript
import ResumableUpload
import Scenario

/// Creations that lost their connection before the client had the server's 104 announcing the upload: the client
/// could not resume them, only start over. Evidence for the counts this changes (resumptions, retries, attempts,
/// restarts from zero, bytes sent again), with both times, so that a verdict names the cause instead of only the
/// count.
///
/// Read from the transcript: a creation asking for resumability (`UploadRequestFacts.createsResumableUpload`), when
/// its first 104 with `Location` reached the proxy, whether the client got it as the proxy recorded
/// (`client_announcement`: written, or withheld, stripped, unwritten), and the connection's close before any final
/// response; what cut it is the last interrupting fault (`FaultAction.interruptsUpload`) fired on the connection,
/// else the event that played last before the close, else the side that closed.
enum UnannouncedCuts {
    private struct Creation {
        var exchange: Int
        var head: RequestHead
        /// When the first 104 with `Location` reached the proxy, and whether the client got it (`client_announcement`).
        var announcedAt: Duration?
        var delivered = false
        var keptBy: String?
        var lastFault: (time: Duration, fault: FiredFault)?
    }

    /// One line per creation cut before the client had its announcement.
    static func lines(_ transcript: Transcript, events: [EventRecord]) -> [String] {
        var open: [Int: Creation] = [:]
        var lines: [String] = []
        for event in transcript.events {
            let connection = event.connection
            switch event.kind {
            case .requestHead(let exchange, let head):
                open[connection] =
                    UploadRequestFacts(head).createsResumableUpload
                    ? Creation(exchange: exchange, head: head) : nil
            case .interimResponse(let exchange, let head):
                guard open[connection]?.exchange == exchange, open[connection]?.announcedAt == nil,
                    head.status == 104, UploadResponseFacts(head, requestVersion: nil).resourcePath != nil
                else { continue }
                open[connection]?.announcedAt = event.time
            case .clientAnnouncement(let exchange, _, let outcome):
                guard open[connection]?.exchange == exchange else { continue }
                open[connection]?.delivered = outcome == .written
                open[connection]?.keptBy = keptBy(outcome)
            case .faultFired(let fault):
                guard open[connection] != nil else { continue }
                if !fault.rule.hasPrefix("squall-"), FaultAction.interruptingNames.contains(fault.action) {
                    // The run's own rules (holds, a network switch) are its events, named as such below.
                    open[connection]?.lastFault = (event.time, fault)
                }
            case .finalResponse(let exchange, _):
                if open[connection]?.exchange == exchange { open[connection] = nil }
            case .closed(let side, let kind):
                guard let creation = open.removeValue(forKey: connection), !creation.delivered else { continue }
                lines.append(line(creation, connection, closedAt: event.time, side, kind, events: events))
            default:
                continue
            }
        }
        return lines
    }

    /// Why the client did not get the 104, as the proxy recorded it.
    private static func keptBy(_ outcome: ClientAnnouncementOutcome) -> String? {
        switch outcome {
        case .written: nil
        case .withheld(let rule): "kept from the client by \(rule) (\"announcement\": \"before\")"
        case .stripped(let rule): "stripped by \(rule)"
        case .unwritten: "not yet written to the client when the connection ended"
        }
    }

    private static func line(
        _ creation: Creation, _ connection: Int, closedAt time: Duration, _ side: CloseSide, _ kind: CloseKind,
        events: [EventRecord]
    ) -> String {
        let request = Evidence.request(creation.head, connection: connection, exchange: creation.exchange)
        let announcement =
            switch (creation.announcedAt, creation.keptBy) {
            case (let at?, let kept?): "its 104 came at \(ScenarioOracle.seconds(at)), \(kept)"
            case (let at?, nil): "its 104 came at \(ScenarioOracle.seconds(at))"
            default: "no 104 came"
            }
        let before = events.filter { ($0.proxyMicroseconds ?? .max) <= Int64(time / .microseconds(1)) }
        let cause = cause(creation, side, kind, before)
        return "\(request) was cut at \(ScenarioOracle.seconds(time)) (\(cause)) "
            + "before the client had the server's 104 announcing the upload (\(announcement)): the client could not "
            + "resume it"
    }

    /// What cut the connection: its last fault, else the last of `events` (those played before the close), else
    /// who closed it.
    private static func cause(_ creation: Creation, _ side: CloseSide, _ kind: CloseKind, _ events: [EventRecord])
        -> String
    {
        if let (_, fault) = creation.lastFault {
            let offset = fault.offset.map { " at upload offset \($0)" } ?? ""
            return "fault \(fault.rule): \(fault.action)\(offset)"
        }
        let closed = "\(side.rawValue) \(kind == .rst ? "RST" : "FIN")"
        if let event = events.max(by: { ($0.proxyMicroseconds ?? 0) < ($1.proxyMicroseconds ?? 0) }) {
            return "event \(event.event) \(event.trigger), then \(closed)"
        }
        return closed
    }
}
