import HTTPWire
import SquallNet

/// Reads requests from one connection with `HTTP1Parser(role: .server)`: heads whole, bodies as chunks of at most
/// `bufferSize` bytes (never a whole body), each read bounded by a deadline.
final class RequestReader {
    /// What the next part of a body is.
    enum BodyPart {
        case data(ArraySlice<UInt8>)
        case end
    }

    /// Why reading stopped.
    enum Failure: Error {
        /// The head did not arrive in time (408).
        case headTimeout
        /// The peer closed (`eof`), reset (`reset`) or went silent (`timeout`), or the read failed otherwise (the
        /// error's description): the reason, for the server log.
        case interrupted(String)
        /// The bytes are not HTTP/1.1 as `HTTP1Parser` accepts it.
        case malformed(HTTPWireError)
    }

    static let bufferSize = 64 * 1024

    let stream: any ByteStream
    private var parser = HTTP1Parser(role: .server)
    private var pending: [HTTP1Event] = []
    private var pendingIndex = 0
    private var buffer = [UInt8](repeating: 0, count: RequestReader.bufferSize)
    /// A parse error, thrown once the events parsed before it (body bytes included) have been taken.
    private var failure: Failure?

    init(stream: any ByteStream) {
        self.stream = stream
    }

    /// The next request head; nil when the peer closes or stays silent for `idleTimeout` between requests. Once its
    /// first byte arrived, the head must be complete within `headTimeout`.
    func nextHead(idleTimeout: Duration, headTimeout: Duration) throws(Failure) -> RequestHead? {
        var deadline = ContinuousClock.now.advanced(by: idleTimeout)
        var started = false
        while true {
            if let event = nextPending() {
                guard case .requestHead(let head) = event else { continue }
                return head
            }
            if let failure { throw failure }
            let count: Int
            do {
                count = try read(deadline: deadline)
            } catch let error as NetError where error.code == .timeout {
                if started { throw .headTimeout }
                return nil
            } catch {
                if started { throw .interrupted(Self.reason(error)) }
                return nil
            }
            if count == 0 {
                if started { throw .interrupted("eof") }
                return nil
            }
            if !started {
                started = true
                deadline = ContinuousClock.now.advanced(by: headTimeout)
            }
            parse(count)
        }
    }

    /// The next part of the current request's body, waiting at most `timeout` for bytes.
    func nextBodyPart(timeout: Duration) throws(Failure) -> BodyPart {
        while true {
            if let event = nextPending() {
                switch event {
                case .body(let bytes): return .data(bytes)
                case .end: return .end
                default: continue
                }
            }
            if let failure { throw failure }
            let count: Int
            do {
                count = try read(deadline: ContinuousClock.now.advanced(by: timeout))
            } catch {
                throw .interrupted(Self.reason(error))
            }
            if count == 0 { throw .interrupted("eof") }
            parse(count)
        }
    }

    /// Ends the write side, then reads and drops what the peer still sends (at most `limit` bytes, until
    /// `deadline`), so that closing with unread bytes does not reset the connection before the peer has read the
    /// last response (a lingering close).
    func linger(limit: Int, deadline: ContinuousClock.Instant) {
        do {
            try stream.shutdownWrite(deadline: deadline)
            var total = 0
            while total < limit {
                let count = try read(deadline: deadline)
                if count == 0 { return }
                total += count
            }
        } catch {
            return
        }
    }

    private func nextPending() -> HTTP1Event? {
        guard pendingIndex < pending.count else { return nil }
        defer { pendingIndex += 1 }
        return pending[pendingIndex]
    }

    private func read(deadline: ContinuousClock.Instant) throws -> Int {
        try buffer.withUnsafeMutableBytes { try stream.readSome(into: $0, deadline: deadline) }
    }

    /// Why a read failed: `timeout`, `reset`, or the error's description.
    private static func reason(_ error: any Error) -> String {
        switch (error as? NetError)?.code {
        case .timeout: "timeout"
        case .connectionReset: "reset"
        default: "\(error)"
        }
    }

    /// Parses the `count` bytes just read; the events' body slices share a copy of them. A malformed input keeps
    /// the events before the error, and the error waits in `failure` until they are taken.
    private func parse(_ count: Int) {
        let bytes = Array(buffer[..<count])
        pending.removeAll(keepingCapacity: true)
        pendingIndex = 0
        do {
            try parser.feed(bytes[...], into: &pending)
        } catch {
            failure = .malformed(error)
        }
    }
}
