import COpenSSL
import Glibc

/// The TLS records a `TLSStream` has produced and not yet sent, in order: OpenSSL writes into them through a BIO
/// that never blocks, and the stream sends them with one `send` per batch of records.
///
/// ```
/// SSL_write_ex ─▶ record ─▶ record ─▶ record ─▶ [OutboundRecords] ── one send(2), MSG_NOSIGNAL ──▶ socket
/// ```
/// OpenSSL's own socket BIO makes one `write(2)` per record (16 KiB of plaintext at most), and with `TCP_NODELAY`
/// each becomes its own segment, woken reader and acknowledgement; batching four records per `send` cuts those by
/// four. Handshake messages, alerts and close_notify go the same way, so everything leaves in the order OpenSSL
/// produced it.
final class OutboundRecords {
    /// The BIO OpenSSL writes into; owned by the `SSL*` once set as its write BIO (`SSL_set0_wbio`).
    let bio: OpaquePointer
    private var storage: UnsafeMutableRawPointer
    private var capacity: Int
    private var start = 0
    private var end = 0

    init() {
        capacity = 32 * 1024
        storage = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        guard let bio = BIO_new(outboundMethod) else { fatalError("OpenSSL could not allocate a BIO") }
        self.bio = bio
        BIO_set_data(bio, Unmanaged.passUnretained(self).toOpaque())
    }

    deinit {
        storage.deallocate()
    }

    /// Bytes produced and not yet sent.
    var pendingCount: Int { end - start }

    /// Sends what is pending to `fd`: true once everything went, false when the socket would block first (the rest
    /// stays pending). `wait: false` never blocks, even on a blocking socket. Throws the socket's error.
    func send(to fd: Int32, wait: Bool = true) throws -> Bool {
        let flags = Int32(MSG_NOSIGNAL) | (wait ? 0 : Int32(MSG_DONTWAIT))
        while start < end {
            let count = Glibc.send(fd, storage + start, end - start, flags)
            if count > 0 {
                start += count
                continue
            }
            if count < 0 && errno == EINTR { continue }
            if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return false }
            throw TLSError.system(.io, "TLS write", errno: count < 0 ? errno : EPIPE)
        }
        start = 0
        end = 0
        return true
    }

    /// Drops what is pending (the connection is being reset).
    func discard() {
        start = 0
        end = 0
    }

    /// Appends bytes OpenSSL wrote.
    fileprivate func append(_ bytes: UnsafeRawPointer, _ count: Int) {
        if end + count > capacity {
            if start > 0 {
                storage.copyMemory(from: storage + start, byteCount: end - start)
                end -= start
                start = 0
            }
            if end + count > capacity {
                let grown = max(capacity * 2, end + count)
                let replacement = UnsafeMutableRawPointer.allocate(byteCount: grown, alignment: 16)
                replacement.copyMemory(from: storage, byteCount: end)
                storage.deallocate()
                storage = replacement
                capacity = grown
            }
        }
        (storage + end).copyMemory(from: bytes, byteCount: count)
        end += count
    }

    /// The records of the BIO's data pointer.
    fileprivate static func owner(of bio: OpaquePointer?) -> OutboundRecords? {
        guard let bio, let pointer = BIO_get_data(bio) else { return nil }
        return Unmanaged<OutboundRecords>.fromOpaque(pointer).takeUnretainedValue()
    }
}

/// The BIO method of `OutboundRecords`: writes append and always succeed, flushes succeed (the stream sends after
/// each OpenSSL call), and the descriptor is not told (nothing may write around the records' order).
nonisolated(unsafe) private let outboundMethod: OpaquePointer = {
    guard let method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "squall outbound records") else {
        fatalError("OpenSSL could not create a BIO method")
    }
    _ = BIO_meth_set_write_ex(method) { bio, bytes, count, written in
        guard let records = OutboundRecords.owner(of: bio), let bytes else { return 0 }
        records.append(bytes, count)
        written?.pointee = count
        return 1
    }
    _ = BIO_meth_set_ctrl(method) { bio, command, _, _ in
        switch command {
        case BIO_CTRL_FLUSH: 1
        case BIO_CTRL_WPENDING: OutboundRecords.owner(of: bio)?.pendingCount ?? 0
        case BIO_C_GET_FD: -1
        default: 0
        }
    }
    _ = BIO_meth_set_create(method) { bio in
        BIO_set_init(bio, 1)
        return 1
    }
    _ = BIO_meth_set_destroy(method) { bio in
        BIO_set_data(bio, nil)
        BIO_set_init(bio, 0)
        return 1
    }
    return method
}()
