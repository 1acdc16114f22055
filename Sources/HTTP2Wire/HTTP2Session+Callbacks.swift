import CNghttp2
import HTTPWire

/// libnghttp2's callbacks into the session (frames and header fields received, frames sent, streams closed), the
/// data provider that frames queued content, and header blocks as nghttp2's name-value pairs.
extension HTTP2Session {
    static func install(_ callbacks: OpaquePointer?) {
        nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks) { _, frame, userData in
            guard let frame else { return 0 }
            owner(userData).blocks[frame.pointee.hd.stream_id] = []
            return 0
        }
        nghttp2_session_callbacks_set_on_header_callback(callbacks) {
            _, frame, name, nameLength, value, valueLength, _, userData in
            guard let frame, let name, let value else { return 0 }
            let field = HTTPField(
                name: String(decoding: UnsafeBufferPointer(start: name, count: nameLength), as: UTF8.self),
                value: String(decoding: UnsafeBufferPointer(start: value, count: valueLength), as: UTF8.self))
            owner(userData).blocks[frame.pointee.hd.stream_id, default: []].append(field)
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks) { _, frame, userData in
            guard let frame else { return 0 }
            owner(userData).received(frame.pointee)
            return 0
        }
        nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks) { _, _, stream, data, length, userData in
            guard let data, length > 0 else { return 0 }
            owner(userData).receivedContent(UnsafeBufferPointer(start: data, count: length), on: stream)
            return 0
        }
        nghttp2_session_callbacks_set_on_frame_send_callback(callbacks) { _, frame, userData in
            guard let frame, frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0 else { return 0 }
            let session = owner(userData)
            let stream = frame.pointee.hd.stream_id
            if let code = session.resetsAfterEnd.removeValue(forKey: stream) { session.reset(stream, code: code) }
            return 0
        }
        nghttp2_session_callbacks_set_on_stream_close_callback(callbacks) { _, stream, code, userData in
            let session = owner(userData)
            if let queue = session.outbound[stream] { session.unframedAtClose[stream] = queue.queued }
            session.outbound[stream] = nil
            session.blocks[stream] = nil
            session.resetsAfterEnd[stream] = nil
            session.events.append(.closed(stream: stream, code: HTTP2ErrorCode(rawValue: code)))
            return 0
        }
    }

    /// Content of `stream`: joined to the `.data` event just before it when that one is the same stream's, so that a
    /// burst of DATA frames read at once comes out as one event (one copy, one write for whoever forwards it).
    private func receivedContent(_ chunk: UnsafeBufferPointer<UInt8>, on stream: Int32) {
        if case .data(let last, var bytes)? = events.last, last == stream {
            events.removeLast()
            bytes.append(contentsOf: chunk)
            events.append(.data(stream: stream, bytes: bytes))
            return
        }
        var bytes: [UInt8] = []
        // A large chunk gets room for the rest of what `receive` was given, when the chunk lies in it (it does for
        // DATA): the frames after it may be more of the same stream's.
        if chunk.count >= 8192, let base = chunk.baseAddress, let input, base >= input.lowerBound,
            base < input.upperBound
        {
            bytes.reserveCapacity(min(input.upperBound - base, 1 << 20))
        }
        bytes.append(contentsOf: chunk)
        events.append(.data(stream: stream, bytes: bytes))
    }

    private func received(_ frame: nghttp2_frame) {
        let stream = frame.hd.stream_id
        let endsStream = frame.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
        switch UInt32(frame.hd.type) {
        case NGHTTP2_HEADERS.rawValue:
            events.append(
                .headers(stream: stream, fields: blocks.removeValue(forKey: stream) ?? [], endStream: endsStream))
        case NGHTTP2_DATA.rawValue where endsStream:
            events.append(.endStream(stream: stream))
        case NGHTTP2_RST_STREAM.rawValue:
            events.append(.reset(stream: stream, code: HTTP2ErrorCode(rawValue: frame.rst_stream.error_code)))
        case NGHTTP2_GOAWAY.rawValue:
            events.append(
                .goaway(
                    lastStream: frame.goaway.last_stream_id, code: HTTP2ErrorCode(rawValue: frame.goaway.error_code)))
        case NGHTTP2_SETTINGS.rawValue where frame.hd.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0:
            let entries = UnsafeBufferPointer(start: frame.settings.iv, count: frame.settings.niv)
            events.append(
                .settings(
                    entries.compactMap { entry in
                        HTTP2Setting.Identifier(rawValue: UInt16(truncatingIfNeeded: entry.settings_id)).map {
                            HTTP2Setting($0, entry.value)
                        }
                    }))
        case NGHTTP2_PING.rawValue where frame.hd.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0:
            events.append(.pingAcknowledged)
        case NGHTTP2_PING.rawValue where holdsPings:
            let opaque = withUnsafeBytes(of: frame.ping.opaque_data) { $0.loadUnaligned(as: UInt64.self) }
            events.append(.ping(opaque: opaque))
        case NGHTTP2_WINDOW_UPDATE.rawValue:
            events.append(.windowUpdate(stream: stream, increment: frame.window_update.window_size_increment))
        default:
            break
        }
    }

    /// Copies up to `length` queued bytes of `stream` into `buffer`; defers when none are queued and the end was
    /// not asked for.
    func read(
        _ stream: Int32, into buffer: UnsafeMutablePointer<UInt8>, length: Int, flags: UnsafeMutablePointer<UInt32>
    ) -> Int {
        guard var queue = outbound[stream] else {
            flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
            return 0
        }
        var copied = 0
        while copied < length, let first = queue.chunks.first {
            let count = min(length - copied, first.count - queue.offset)
            first.withUnsafeBufferPointer { source in
                (buffer + copied).update(from: source.baseAddress! + queue.offset, count: count)
            }
            copied += count
            queue.offset += count
            if queue.offset == first.count {
                queue.chunks.removeFirst()
                queue.offset = 0
            }
        }
        queue.queued -= copied
        if queue.chunks.isEmpty && queue.ended {
            flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
        } else if copied == 0 {
            queue.deferred = true
            outbound[stream] = queue
            return Int(NGHTTP2_ERR_DEFERRED.rawValue)
        }
        outbound[stream] = queue
        return copied
    }

    static func provider() -> nghttp2_data_provider {
        var provider = nghttp2_data_provider()
        provider.read_callback = { _, stream, buffer, length, flags, _, userData in
            guard let buffer, let flags else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
            return owner(userData).read(stream, into: buffer, length: length, flags: flags)
        }
        return provider
    }

    /// Calls `body` with `fields` as nghttp2's name-value pairs (valid only during the call; nghttp2 copies them).
    static func withHeaderBlock<Result>(
        _ fields: [HTTPField], _ body: (UnsafeBufferPointer<nghttp2_nv>) -> Result
    ) -> Result {
        // Every name and value in one buffer; a field is its name's and value's offsets and lengths in it.
        var bytes: [UInt8] = []
        var spans: [(name: Int, nameLength: Int, value: Int, valueLength: Int)] = []
        for field in fields {
            let name = bytes.count
            bytes.append(contentsOf: field.name.utf8)
            let value = bytes.count
            bytes.append(contentsOf: field.value.utf8)
            spans.append((name, value - name, value, bytes.count - value))
        }
        bytes.append(0)  // never empty, so that the buffer has an address
        return bytes.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            let pairs = spans.map { span in
                nghttp2_nv(
                    name: base + span.name, value: base + span.value, namelen: span.nameLength,
                    valuelen: span.valueLength, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue))
            }
            return pairs.withUnsafeBufferPointer(body)
        }
    }

}

/// The session a libnghttp2 callback's user data points to.
private func owner(_ userData: UnsafeMutableRawPointer?) -> HTTP2Session {
    Unmanaged<HTTP2Session>.fromOpaque(userData!).takeUnretainedValue()
}
