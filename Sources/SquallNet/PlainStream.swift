import CSystem
import Glibc

/// A `ByteStream` over a plain TCP socket.
public final class PlainStream: ByteStream {
    public let socket: Socket

    public init(socket: Socket) {
        self.socket = socket
    }

    public var fileDescriptor: Int32 { socket.fd }

    public var bufferedReadableCount: Int { 0 }

    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> IOOutcome {
        while true {
            let count = recv(socket.fd, buffer.baseAddress, buffer.count, 0)
            if count > 0 { return .done(count) }
            if count == 0 { return buffer.isEmpty ? .done(0) : .endOfStream }
            switch errno {
            case EINTR: continue
            case EAGAIN: return .wouldBlock(.read)
            default: throw NetError.system(.read, "recv")
            }
        }
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws -> IOOutcome {
        while true {
            let count = send(socket.fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
            if count >= 0 { return .done(count) }
            switch errno {
            case EINTR: continue
            case EAGAIN: return .wouldBlock(.write)
            default: throw NetError.system(.write, "send")
            }
        }
    }

    public func shutdownWrite() throws -> IOOutcome {
        socket.shutdown(writing: true)
        return .done(0)
    }

    public func close() {
        socket.close()
    }

    public func abort() {
        socket.abort()
    }
}
