import SquallCore

/// `strip-interim`: drops each 1xx interim response it fires on (a middlebox that loses the 104).
///
/// ```json
/// {"name": "no-104", "action": "strip-interim"}
/// ```
enum InterimStripping: FaultFamily {
    static func owns(_ action: FaultAction) -> Bool { action == .stripInterim }

    static let keys: [String: Set<String>] = ["strip-interim": []]

    static func read(_ name: String, _ reader: JSONFieldReader) throws -> FaultAction { .stripInterim }

    static func encode(_ action: FaultAction, _ writer: inout KeyWriter) throws {}

    static func name(_ action: FaultAction) -> String { "strip-interim" }

    static func timing(_ action: FaultAction, direction: FaultDirection) -> FaultAction.Timing { .interimResponse }

    static func wire(_ action: FaultAction) -> FaultWire { .stripInterim }

    static func unfired(_ action: FaultAction, in faults: ConnectionFaults, request: String) -> String? {
        faults.met.interims == 0 && faults.met.finalResponse
            ? "no interim (1xx) response came to \(request) before its final response: nothing to strip" : nil
    }
}
