import SquallCore

/// `rewrite-header`: sets a field (or removes it, with no `value`) on the request head the server gets
/// (`upstream`), or on the final response head the client gets (`downstream`, the default).
///
/// ```json
/// {"name": "old-version", "action": "rewrite-header", "direction": "upstream",
///  "header": "Upload-Draft-Interop-Version", "value": "3"}
/// {"name": "no-location", "action": "rewrite-header", "header": "Location"}
/// ```
enum HeadRewrites: FaultFamily {
    static func owns(_ action: FaultAction) -> Bool {
        if case .rewriteHeader = action { true } else { false }
    }

    static let keys: [String: Set<String>] = ["rewrite-header": ["header", "value"]]

    /// `header`, `value` (absent or null removes the field).
    static func read(_ name: String, _ reader: JSONFieldReader) throws -> FaultAction {
        let header = try reader.require(try reader.string("header"), "header", expected: "a field name")
        return .rewriteHeader(name: header, value: reader.isNull("value") ? nil : try reader.string("value"))
    }

    static func encode(_ action: FaultAction, _ writer: inout KeyWriter) throws {
        guard case .rewriteHeader(let name, let value) = action else { return }
        try writer.string("header", name)
        if let value { try writer.string("value", value) }
    }

    static func validate(_ action: FaultAction, in rule: FaultRule) throws(FaultError) {
        guard case .rewriteHeader(let name, let value) = action else { return }
        if rule.direction == .both {
            throw FaultError(.notApplicable, path: "direction", "rewrite-header needs upstream or downstream")
        }
        try FaultRule.checkSendable(name: name, value: "", path: "header")
        if let value { try FaultRule.checkSendable(name: name, value: value, path: "value") }
    }

    static func name(_ action: FaultAction) -> String { "rewrite-header" }

    static func timing(_ action: FaultAction, direction: FaultDirection) -> FaultAction.Timing {
        direction == .upstream ? .requestHead : .finalResponse
    }

    static func takesDirection(_ action: FaultAction) -> Bool { true }

    static func defaultDirection(_ action: FaultAction) -> FaultDirection { .downstream }

    static func wire(_ action: FaultAction) -> FaultWire {
        guard case .rewriteHeader(let name, let value) = action else { preconditionFailure("\(action)") }
        return .rewrite(name: name, value: value)
    }
}
