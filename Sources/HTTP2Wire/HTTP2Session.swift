import CNghttp2
import HTTPWire

/// One HTTP/2 connection's state machine (RFC 9113) over libnghttp2, which frames, compresses headers (HPACK) and
/// keeps the flow-control windows; it does no I/O and reads no clock.
///
/// ```
///   bytes read ─▶ receive(_:) ─▶ [HTTP2Event]        submit…(), send(_:on:), end(_:) ─▶ takeOutput() ─▶ bytes to write
/// ```
/// The caller owns the socket: it feeds what it read, writes what `takeOutput` gives, and reads the events. Content
/// queued with `send(_:on:)` goes out as the peer's windows allow; `queuedCount(on:)` tells how much waits, so a
/// producer can hold back. With `Options.manualWindowUpdates`, this side's windows reopen only as the caller
/// `consume`s what it took (backpressure, and a stall when it never does). One thread uses a session at a time.
public final class HTTP2Session {
    public enum Role: Sendable {
        case client
        case server
    }

    /// How the session behaves.
    public struct Options: Sendable {
        /// The `SETTINGS` this side sends first. Default: at most 100 concurrent streams, a 1 MiB stream window, no
        /// server push.
        public var settings: [HTTP2Setting] = [
            HTTP2Setting(.maxConcurrentStreams, 100), HTTP2Setting(.initialWindowSize, 1 << 20),
            HTTP2Setting(.enablePush, 0),
        ]
        /// This side's connection window, opened at the start (RFC 9113 §6.9.2 starts it at 65,535). Default 16 MiB.
        public var connectionWindow: Int32 = 16 << 20
        /// Whether this side's windows reopen only as `consume` is called (else as soon as content is read).
        public var manualWindowUpdates = false
        /// Whether a `PING` is left for the caller to acknowledge (`.ping` events, `acknowledgePing`), so that it may
        /// hold the acknowledgement back (a fault: a peer whose pings time out).
        public var holdPings = false

        public init() {}
    }

    public let role: Role
    // nghttp2_session is an incomplete C type: Swift sees an OpaquePointer.
    private var session: OpaquePointer?
    // The state below is the callbacks' too (HTTP2Session+Callbacks.swift).
    var events: [HTTP2Event] = []
    /// The bytes `receive` is reading, while it does.
    var input: Range<UnsafePointer<UInt8>>?
    /// The content queued on each stream that closed during the last `receive` and never framed (`unframedAtClose`).
    var unframedAtClose: [Int32: Int] = [:]
    var blocks: [Int32: [HTTPField]] = [:]
    var outbound: [Int32: Outbound] = [:]
    /// Resets to send once a stream's last frame (with `END_STREAM`) went out.
    var resetsAfterEnd: [Int32: HTTP2ErrorCode] = [:]
    private let manualWindowUpdates: Bool
    /// `Options.holdPings` (read by the callbacks).
    let holdsPings: Bool

    /// Content queued for a stream and whether its end was asked for.
    struct Outbound {
        var chunks: [[UInt8]] = []
        var offset = 0
        var queued = 0
        var ended = false
        var deferred = false
        var attached = false
    }

    /// A session for `role`, its first `SETTINGS` and connection window queued for `takeOutput` (after the client
    /// connection preface, for a client).
    public init(role: Role, options: Options = Options()) throws(HTTP2Error) {
        self.role = role
        self.manualWindowUpdates = options.manualWindowUpdates
        self.holdsPings = options.holdPings
        var callbacks: OpaquePointer?
        try Self.check(nghttp2_session_callbacks_new(&callbacks), "creating the callbacks")
        defer { nghttp2_session_callbacks_del(callbacks) }
        Self.install(callbacks)
        var option: OpaquePointer?
        try Self.check(nghttp2_option_new(&option), "creating the options")
        defer { nghttp2_option_del(option) }
        nghttp2_option_set_no_auto_window_update(option, options.manualWindowUpdates ? 1 : 0)
        nghttp2_option_set_no_auto_ping_ack(option, options.holdPings ? 1 : 0)
        let me = Unmanaged.passUnretained(self).toOpaque()
        switch role {
        case .client: try Self.check(nghttp2_session_client_new2(&session, callbacks, me, option), "a client session")
        case .server: try Self.check(nghttp2_session_server_new2(&session, callbacks, me, option), "a server session")
        }
        let entries = options.settings.map {
            nghttp2_settings_entry(settings_id: Int32($0.identifier.rawValue), value: $0.value)
        }
        try Self.check(
            nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), entries, entries.count), "SETTINGS")
        if options.connectionWindow > 65_535 {
            try Self.check(
                nghttp2_session_set_local_window_size(
                    session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, options.connectionWindow),
                "the connection window")
        }
    }

    deinit {
        nghttp2_session_del(session)
    }

    // MARK: Input

    /// Reads bytes from the peer and returns what they said. Throws on a connection error (a bad preface, a
    /// protocol violation): `takeOutput` then holds the `GOAWAY` to send before closing.
    public func receive(_ bytes: UnsafeRawBufferPointer) throws(HTTP2Error) -> [HTTP2Event] {
        unframedAtClose.removeAll(keepingCapacity: true)
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), !bytes.isEmpty else { return [] }
        input = UnsafePointer(base)..<UnsafePointer(base + bytes.count)
        defer { input = nil }
        let read = nghttp2_session_mem_recv(session, base, bytes.count)
        if read < 0 { throw HTTP2Error(code: Int32(read), "reading the peer's frames") }
        defer { events.removeAll(keepingCapacity: true) }
        return events
    }

    /// `receive` for an array.
    public func receive(_ bytes: [UInt8]) throws(HTTP2Error) -> [HTTP2Event] {
        let result: Result<[HTTP2Event], HTTP2Error> = bytes.withUnsafeBytes { raw in
            do throws(HTTP2Error) { return .success(try receive(raw)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Tells the session the caller took `count` content bytes of `stream`, so that its windows may reopen
    /// (`Options.manualWindowUpdates`; nothing otherwise).
    public func consume(_ count: Int, on stream: Int32) {
        guard manualWindowUpdates, count > 0 else { return }
        // A stream already closed (or 0, no stream) has nothing to reopen: only the connection's window counts then.
        if nghttp2_session_consume(session, stream, count) != 0 {
            _ = nghttp2_session_consume_connection(session, count)
        }
    }

    // MARK: Output

    /// The bytes to write to the peer now (frames as the windows and the queues allow), at most about `limit`.
    public func takeOutput(limit: Int = 256 * 1024) throws(HTTP2Error) -> [UInt8] {
        var output: [UInt8] = []
        while output.count < limit {
            var data: UnsafePointer<UInt8>?
            let count = nghttp2_session_mem_send(session, &data)
            if count < 0 { throw HTTP2Error(code: Int32(count), "writing frames") }
            guard count > 0, let data else { break }
            output.append(contentsOf: UnsafeBufferPointer(start: data, count: count))
            // A large first frame (DATA) likely has more behind it: room for the whole burst, grown once.
            if output.count == count && count >= 8192 { output.reserveCapacity(limit + 16 * 1024) }
        }
        return output
    }

    /// Whether the session has nothing left to read or write: both sides said they are done (`GOAWAY` with every
    /// stream closed) or a connection error ended it.
    public var isFinished: Bool {
        nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0
    }

    /// Whether frames wait to be written.
    public var wantsWrite: Bool { nghttp2_session_want_write(session) != 0 }

    /// A client's request: its head, then content with `send(_:on:)` and `end(_:)` unless `endStream`. Returns the
    /// new stream's id.
    public func submitRequest(_ fields: [HTTPField], endStream: Bool) throws(HTTP2Error) -> Int32 {
        let stream = Self.withHeaderBlock(fields) { block in
            withUnsafePointer(to: Self.provider()) { provider in
                nghttp2_submit_request(session, nil, block.baseAddress, block.count, endStream ? nil : provider, nil)
            }
        }
        if stream < 0 { throw HTTP2Error(code: stream, "submitting a request") }
        if !endStream { outbound[stream, default: Outbound()].attached = true }
        return stream
    }

    /// A response head on `stream`: an interim one (1xx, as many as wanted), or the final one, then content with
    /// `send(_:on:)` and `end(_:)` unless `endStream`.
    public func submitResponse(_ fields: [HTTPField], on stream: Int32, endStream: Bool) throws(HTTP2Error) {
        let interim = fields.first { $0.name == ":status" }.map { $0.value.hasPrefix("1") } ?? false
        if interim {
            let result = Self.withHeaderBlock(fields) { block in
                nghttp2_submit_headers(
                    session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream, nil, block.baseAddress, block.count, nil)
            }
            if result < 0 { throw HTTP2Error(code: result, "submitting an interim response") }
            return
        }
        let result = Self.withHeaderBlock(fields) { block in
            withUnsafePointer(to: Self.provider()) { provider in
                nghttp2_submit_response(session, stream, block.baseAddress, block.count, endStream ? nil : provider)
            }
        }
        if result < 0 { throw HTTP2Error(code: result, "submitting a response") }
        if !endStream { outbound[stream, default: Outbound()].attached = true }
    }

    /// Queues content on `stream` (after its request or final response head).
    public func send(_ bytes: [UInt8], on stream: Int32) {
        guard !bytes.isEmpty else { return }
        outbound[stream, default: Outbound()].chunks.append(bytes)
        outbound[stream, default: Outbound()].queued += bytes.count
        resume(stream)
    }

    /// Ends `stream`'s content once what is queued has gone (`END_STREAM`).
    public func end(_ stream: Int32) {
        outbound[stream, default: Outbound()].ended = true
        resume(stream)
    }

    /// Content bytes queued on `stream` and not yet framed.
    public func queuedCount(on stream: Int32) -> Int {
        outbound[stream]?.queued ?? 0
    }

    /// For a stream whose `.closed` event the last `receive` returned (a reset by the peer included): how many of the
    /// content bytes queued on it were never framed, so that a sender knows how much went; nil for another stream.
    public func unframedAtClose(on stream: Int32) -> Int? {
        unframedAtClose[stream]
    }

    /// How many content bytes the peer lets this side send on `stream` now (its window and the connection's).
    public func sendWindow(on stream: Int32) -> Int {
        let window = nghttp2_session_get_stream_remote_window_size(session, stream)
        return Int(min(max(window, 0), max(nghttp2_session_get_remote_window_size(session), 0)))
    }

    /// Resets `stream` (`RST_STREAM` with `code`); what was queued for it is dropped.
    public func reset(_ stream: Int32, code: HTTP2ErrorCode) {
        outbound[stream] = nil
        _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream, code.rawValue)
    }

    /// Resets `stream` with `code` once what this side sends on it has gone whole (its `END_STREAM`): a server
    /// refusing the rest of a request whose response is complete (RFC 9113 §8.1, `NO_ERROR`).
    public func reset(_ stream: Int32, code: HTTP2ErrorCode, afterEnd: Bool) {
        guard afterEnd else { return reset(stream, code: code) }
        resetsAfterEnd[stream] = code
    }

    /// Says this side goes away (`GOAWAY`): streams above `lastStream` (default: the last one the peer opened and
    /// this side processed) will not be processed.
    public func goAway(lastStream: Int32? = nil, code: HTTP2ErrorCode = .noError) {
        let last = lastStream ?? nghttp2_session_get_last_proc_stream_id(session)
        _ = nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), last, code.rawValue, nil, 0)
    }

    /// Sends a `PING`; the peer's acknowledgement comes as `.pingAcknowledged`.
    public func ping() {
        _ = nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil)
    }

    /// Acknowledges the peer's `PING` with these opaque bytes (`Options.holdPings`).
    public func acknowledgePing(_ opaque: UInt64) {
        withUnsafeBytes(of: opaque) { bytes in
            _ = nghttp2_submit_ping(
                session, UInt8(NGHTTP2_FLAG_ACK.rawValue), bytes.baseAddress?.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// Sends new `SETTINGS` mid-connection.
    public func submitSettings(_ settings: [HTTP2Setting]) {
        let entries = settings.map {
            nghttp2_settings_entry(settings_id: Int32($0.identifier.rawValue), value: $0.value)
        }
        _ = nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), entries, entries.count)
    }

    /// What the peer's `SETTINGS` set `identifier` to (its default until they came).
    public func peerSetting(_ identifier: HTTP2Setting.Identifier) -> UInt32 {
        nghttp2_session_get_remote_settings(session, nghttp2_settings_id(rawValue: UInt32(identifier.rawValue)))
    }

    /// The highest stream id the peer opened so far.
    public var lastPeerStream: Int32 {
        nghttp2_session_get_last_proc_stream_id(session)
    }

    private func resume(_ stream: Int32) {
        guard outbound[stream]?.deferred == true else { return }
        outbound[stream]?.deferred = false
        _ = nghttp2_session_resume_data(session, stream)
    }

    private static func check(_ result: Int32, _ what: String) throws(HTTP2Error) {
        if result != 0 { throw HTTP2Error(code: result, what) }
    }
}
