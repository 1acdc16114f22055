import HTTP2Wire
import SquallCore

/// The faults of HTTP/2 itself, at whatever moment the trigger picks, an upload offset included:
/// - `reset-stream` resets the stream the rule matched (`RST_STREAM` with `code`, by name or number, default
///   `INTERNAL_ERROR`) while the connection's other streams go on;
/// - `window-stall` reopens no flow-control window of the stream (`scope: "connection"`: of every stream of the
///   connection) for `duration` (absent: never): no `WINDOW_UPDATE`, so the client's sending stops once its windows
///   are spent while TCP flows on, a stall no TCP-level tool can make;
/// - `goaway` says the connection goes away (`GOAWAY` with `code`, default `NO_ERROR`): `last-stream` is `this` (the
///   stream it fired on, the default), `before` (the one before it: this one is refused too) or a stream id; streams
///   above it are refused, and the client retries them on a new connection. `graceful` (default true) lets the
///   others finish; `false` ends the connection at once;
/// - `settings` sends the client new `SETTINGS` (`max-concurrent-streams`, `initial-window-size`, `max-frame-size`,
///   `header-table-size`, `max-header-list-size`), which hold from then on: a server changing its mind mid-upload;
/// - `ping-timeout` acknowledges none of the client's `PING`s for `duration` (absent: never) while the rest of the
///   connection flows, so a client that checks its connection with pings takes it for dead.
///
/// A rule of this family fires only on an exchange that came over an HTTP/2 stream; over HTTP/1.1 it never fires,
/// and says why.
///
/// ```json
/// {"name": "cancel-mid-upload", "match": {"method": "POST"}, "trigger": {"at-offset": "40%"}, "action": "reset-stream", "code": "CANCEL"}
/// {"name": "closed-window", "trigger": {"at-offset": "1MiB"}, "action": "window-stall", "scope": "connection"}
/// {"name": "drain", "match": {"nth-request": 2}, "action": "goaway", "last-stream": "before"}
/// {"name": "one-at-a-time", "trigger": {"at-offset": "30%"}, "action": "settings", "settings": {"max-concurrent-streams": 1}}
/// {"name": "no-pong", "action": "ping-timeout", "duration": "30s"}
/// ```
enum HTTP2Streams: FaultFamily {
    static func owns(_ action: FaultAction) -> Bool {
        switch action {
        case .resetStream, .windowStall, .goaway, .settings, .pingTimeout: true
        default: false
        }
    }

    static let keys: [String: Set<String>] = [
        "reset-stream": ["code"], "window-stall": ["duration", "scope"], "goaway": ["code", "last-stream", "graceful"],
        "settings": ["settings"], "ping-timeout": ["duration"],
    ]

    /// The settings a `settings` fault may send, by their names in a rule, with the values RFC 9113 §6.5.2 allows.
    static let settingNames: [(name: String, identifier: HTTP2Setting.Identifier, range: ClosedRange<Int64>)] = [
        ("header-table-size", .headerTableSize, 0...Int64(UInt32.max)),
        ("max-concurrent-streams", .maxConcurrentStreams, 0...Int64(UInt32.max)),
        ("initial-window-size", .initialWindowSize, 0...Int64(Int32.max)),
        ("max-frame-size", .maxFrameSize, 16_384...16_777_215),
        ("max-header-list-size", .maxHeaderListSize, 0...Int64(UInt32.max)),
    ]

    static func read(_ name: String, _ reader: JSONFieldReader) throws -> FaultAction {
        if name == "ping-timeout" { return .pingTimeout(duration: try reader.duration("duration")) }
        if name == "settings" {
            let object = try reader.require(
                try reader.object("settings", expected: "an object of HTTP/2 settings"), "settings",
                expected: "an object of HTTP/2 settings, e.g. {\"max-concurrent-streams\": 1}")
            try object.rejectUnknownKeys(settingNames.map(\.name), context: "settings")
            var settings: [HTTP2Setting] = []
            for (key, identifier, range) in settingNames {
                if let value = try object.integer(key, in: range) {
                    settings.append(HTTP2Setting(identifier, UInt32(value)))
                }
            }
            guard !settings.isEmpty else {
                throw FaultError(
                    .missingKey, path: reader.path("settings"),
                    "name at least one setting: " + settingNames.map(\.name).joined(separator: ", "))
            }
            return .settings(settings)
        }
        if name == "goaway" {
            let last = try reader.read("last-stream") { value, _ throws(FaultError) -> GoawayLastStream in
                if let text = try? value.string(at: "last-stream"), text == "this" || text == "before" {
                    return text == "this" ? .this : .before
                }
                if let id = try? value.integer(at: "last-stream", in: 0...Int64(Int32.max)) { return .id(Int32(id)) }
                throw FaultError(.invalidValue, path: "last-stream", "expected this, before or a stream id")
            }
            return .goaway(
                code: try code(reader, default: .noError), lastStream: last ?? .this,
                graceful: try reader.bool("graceful") ?? true)
        }
        if name == "window-stall" {
            let scope = try reader.string("scope") ?? "stream"
            guard scope == "stream" || scope == "connection" else {
                throw FaultError(.invalidValue, path: "scope", "scope must be stream or connection, not '\(scope)'")
            }
            return .windowStall(duration: try reader.duration("duration"), connection: scope == "connection")
        }
        return .resetStream(code: try code(reader, default: .internalError))
    }

    /// The `code` key: an RFC 9113 §7 error code by name or number, `fallback` when absent.
    private static func code(_ reader: JSONFieldReader, default fallback: HTTP2ErrorCode) throws -> UInt32 {
        let read = try reader.read("code") { value, _ throws(FaultError) -> String in
            if let name = try? value.string(at: "code") { return name }
            if let number = try? value.integer(at: "code", in: 0...Int64(UInt32.max)) { return String(number) }
            throw FaultError(
                .wrongType, path: "code", "expected an HTTP/2 error code: a name such as CANCEL, or a number")
        }
        guard let text = read else { return fallback.rawValue }
        guard let code = HTTP2ErrorCode(name: text) else {
            throw FaultError(
                .invalidValue, path: "code",
                "'\(text)' is no HTTP/2 error code; use a name of RFC 9113 §7 (CANCEL, INTERNAL_ERROR, REFUSED_STREAM,"
                    + " …) or a number such as 0x8")
        }
        return code.rawValue
    }

    static func encode(_ action: FaultAction, _ writer: inout KeyWriter) throws {
        if case .goaway(let code, let last, let graceful) = action {
            if code != HTTP2ErrorCode.noError.rawValue {
                try writer.string("code", HTTP2ErrorCode(rawValue: code).description)
            }
            switch last {
            case .this: break
            case .before: try writer.string("last-stream", "before")
            case .id(let id): try writer.integer("last-stream", Int64(id))
            }
            if !graceful { try writer.bool("graceful", false) }
        }
        if case .windowStall(let duration, let connection) = action {
            try writer.duration("duration", duration)
            if connection { try writer.string("scope", "connection") }
        }
        if case .settings(let settings) = action {
            var object = writer.container.nestedContainer(keyedBy: AnyKey.self, forKey: AnyKey("settings"))
            for (key, identifier, _) in settingNames {
                if let setting = settings.first(where: { $0.identifier == identifier }) {
                    try object.encode(Int64(setting.value), forKey: AnyKey(key))
                }
            }
        }
        if case .pingTimeout(let duration) = action { try writer.duration("duration", duration) }
        if case .resetStream(let code) = action, code != HTTP2ErrorCode.internalError.rawValue {
            try writer.string("code", HTTP2ErrorCode(rawValue: code).description)
        }
    }

    static func name(_ action: FaultAction) -> String {
        switch action {
        case .windowStall: "window-stall"
        case .goaway: "goaway"
        case .settings: "settings"
        case .pingTimeout: "ping-timeout"
        default: "reset-stream"
        }
    }

    static func timing(_ action: FaultAction, direction: FaultDirection) -> FaultAction.Timing {
        .anytime
    }

    static let interrupting: Set<String> = ["reset-stream", "window-stall", "goaway"]

    static func wire(_ action: FaultAction) -> FaultWire {
        switch action {
        case .windowStall(let duration, let connection): .http2(.windowStall(duration, connection: connection))
        case .resetStream(let code): .resetStream(code: code)
        case .goaway(let code, let last, let graceful):
            .http2(.goaway(code: code, lastStream: last, graceful: graceful))
        case .settings(let settings): .http2(.settings(settings))
        case .pingTimeout(let duration): .http2(.pingTimeout(duration))
        default: preconditionFailure("\(action) is no HTTP/2 fault")
        }
    }

    /// Whether `action` can fire only on an exchange that came over an HTTP/2 stream.
    static func needsHTTP2Stream(_ action: FaultAction) -> Bool {
        owns(action)
    }
}
