import HTTP2Wire
import SquallCore

/// The faults of HTTP/2 itself: `reset-stream` resets the stream the rule matched (`RST_STREAM` with `code`, by
/// name or number, default `INTERNAL_ERROR`) at whatever moment the trigger picks, an upload offset included, while
/// the connection's other streams go on. A rule of this family fires only on an exchange that came over an HTTP/2
/// stream; over HTTP/1.1 it never fires, and says why.
///
/// ```json
/// {"name": "cancel-mid-upload", "match": {"method": "POST"}, "trigger": {"at-offset": "40%"}, "action": "reset-stream", "code": "CANCEL"}
/// ```
enum HTTP2Streams: FaultFamily {
    static func owns(_ action: FaultAction) -> Bool {
        if case .resetStream = action { true } else { false }
    }

    static let keys: [String: Set<String>] = ["reset-stream": ["code"]]

    static func read(_ name: String, _ reader: JSONFieldReader) throws -> FaultAction {
        let read = try reader.read("code") { value, _ throws(FaultError) -> String in
            if let name = try? value.string(at: "code") { return name }
            if let number = try? value.integer(at: "code", in: 0...Int64(UInt32.max)) { return String(number) }
            throw FaultError(
                .wrongType, path: "code", "expected an HTTP/2 error code: a name such as CANCEL, or a number")
        }
        guard let text = read else { return .resetStream(code: HTTP2ErrorCode.internalError.rawValue) }
        guard let code = HTTP2ErrorCode(name: text) else {
            throw FaultError(
                .invalidValue, path: "code",
                "'\(text)' is no HTTP/2 error code; use a name of RFC 9113 §7 (CANCEL, INTERNAL_ERROR, REFUSED_STREAM,"
                    + " …) or a number such as 0x8")
        }
        return .resetStream(code: code.rawValue)
    }

    static func encode(_ action: FaultAction, _ writer: inout KeyWriter) throws {
        if case .resetStream(let code) = action, code != HTTP2ErrorCode.internalError.rawValue {
            try writer.string("code", HTTP2ErrorCode(rawValue: code).description)
        }
    }

    static func name(_ action: FaultAction) -> String {
        "reset-stream"
    }

    static func timing(_ action: FaultAction, direction: FaultDirection) -> FaultAction.Timing {
        .anytime
    }

    static let interrupting: Set<String> = ["reset-stream"]

    static func wire(_ action: FaultAction) -> FaultWire {
        if case .resetStream(let code) = action { .resetStream(code: code) } else { .cut(reset: true) }
    }

    /// Whether `action` can fire only on an exchange that came over an HTTP/2 stream.
    static func needsHTTP2Stream(_ action: FaultAction) -> Bool {
        owns(action)
    }
}
