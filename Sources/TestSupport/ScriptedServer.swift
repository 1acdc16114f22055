import Glibc
import HTTPExchange
import HTTPWire
import SquallNet
import Synchronization
import TLSKit

/// A loopback HTTP/1.1 server that plays a script: the nth request it reads (counting across connections) gets
/// the nth `ScriptedStep` — interim responses at chosen body offsets, then a final response, a reset or a close.
/// It plays the misbehaving servers the reference server never is (offsets that go backwards, a 104 then a
/// reset, a 104 of another interop version, a lost final response, a `Location` that changes).
///
/// Ready when `init` returns (`url` has the bound port). Requests past the script get 500 and a close. Every
/// request is recorded with its head and the content bytes the server read.
public final class ScriptedServer: Sendable {
    /// A request as the server read it.
    public struct RecordedRequest: Sendable, Hashable {
        public var head: RequestHead
        public var body: [UInt8]
    }

    /// How long a connection waits for its peer.
    public static let patience: Duration = .seconds(20)

    public let url: String
    private let loop: AcceptLoop
    private let recorded = Mutex<[RecordedRequest]>([])
    private let steps: [ScriptedStep]

    /// Starts the server on 127.0.0.1, port 0; TLS with `tls` (a server context) when given. With
    /// `receiveBuffer`, each accepted socket gets a receive buffer of that many bytes, so that the client's
    /// segments are not limited by how fast this server reads (`SO_RCVBUFFORCE` where permitted, else `SO_RCVBUF`).
    public convenience init(steps: [ScriptedStep], tls: TLSContext? = nil, receiveBuffer: Int32? = nil) throws {
        try self.init(tls: tls, receiveBuffer: receiveBuffer) { _ in steps }
    }

    /// Starts the server with the steps `script` makes from the server's URL (for `Location` values).
    public init(
        tls: TLSContext? = nil, receiveBuffer: Int32? = nil, script: (_ url: String) -> [ScriptedStep]
    ) throws {
        let box = Mutex<ScriptedServer?>(nil)
        loop = try LoopbackServer.start { socket in
            guard let server = box.withLock({ $0 }) else { return socket.close() }
            if let receiveBuffer {
                let level = Int32(SOL_SOCKET)
                if (try? socket.setOption(level: level, name: SO_RCVBUFFORCE, value: receiveBuffer)) == nil {
                    try? socket.setOption(level: level, name: SO_RCVBUF, value: receiveBuffer)
                }
            }
            server.serve(socket, tls: tls)
        }
        url = (tls == nil ? "http://" : "https://") + loop.address.description
        steps = script(url)
        box.withLock { $0 = self }
    }

    deinit {
        loop.stop()
    }

    /// Stops accepting and waits (bounded) for the open connections to end.
    public func stop() {
        loop.stop()
        _ = loop.waitUntilIdle(timeout: Self.patience)
    }

    /// The requests read so far, in order.
    public var requests: [RecordedRequest] { recorded.withLock { $0 } }

    /// The connections accepted so far.
    public var connectionCount: Int { loop.acceptedConnections }

    /// Waits until no connection is open (true) or `timeout` passes (false).
    public func waitUntilIdle(timeout: Duration = ScriptedServer.patience) -> Bool {
        loop.waitUntilIdle(timeout: timeout)
    }

    private func serve(_ socket: Socket, tls: TLSContext?) {
        let stream: any ByteStream
        do {
            stream =
                try tls.map { try TLSStream.accept(socket: socket, context: $0, timeout: Self.patience) }
                ?? PlainStream(socket: socket)
        } catch {
            return socket.close()
        }
        let server = HTTPServerStream(stream: stream)
        let deadline = ContinuousClock.now + Self.patience
        do {
            while let head = try server.nextHead(idleTimeout: deadline - .now, headTimeout: deadline - .now) {
                let index = recorded.withLock { requests in
                    requests.append(RecordedRequest(head: head, body: []))
                    return requests.count - 1
                }
                let step =
                    index < steps.count ? steps[index] : ScriptedStep(respond: 500, fields: ["Connection": "close"])
                guard try play(step, request: index, on: server, until: deadline) else { return }
            }
            stream.close()
        } catch {
            stream.abort()
        }
    }

    /// Plays `step` for request `index`; false when the connection must end.
    private func play(
        _ step: ScriptedStep, request index: Int, on server: HTTPServerStream, until deadline: ContinuousClock.Instant
    ) throws -> Bool {
        let stream = server.stream
        // The next part of the body, or nil when the peer closed.
        func nextBodyPart() throws -> HTTPServerStream.BodyPart? {
            do {
                return try server.nextBodyPart(timeout: deadline - .now)
            } catch {
                guard error.code == .closed else { throw error }
                return nil
            }
        }
        var interims = step.interims[...]
        var received: Int64 = 0
        func sendDue() throws {
            while let next = interims.first, next.afterBytes <= received {
                try server.send(next.head, timeout: deadline - .now)
                interims.removeFirst()
            }
        }
        try sendDue()
        var ended = false
        while !ended && received < (step.bodyLimit ?? Int64.max) {
            guard let part = try nextBodyPart() else { return false }
            guard case .data(let bytes) = part else {
                ended = true
                break
            }
            let take = Int(min(Int64(bytes.count), (step.bodyLimit ?? Int64.max) - received))
            recorded.withLock { $0[index].body.append(contentsOf: bytes.prefix(take)) }
            received += Int64(take)
            try sendDue()
        }
        switch step.ending {
        case .reset:
            stream.abort()
            return false
        case .close:
            stream.close()
            return false
        case .raw(let bytes):
            try stream.writeAll(bytes, deadline: deadline)
            stream.close()
            return false
        case .stall:
            while (try? nextBodyPart()) != nil {}
            stream.close()
            return false
        case .respond(let head):
            try server.send(head, timeout: deadline - .now)
            return ended && head.keepAlive
        }
    }
}

/// What a `ScriptedServer` does with one request.
public struct ScriptedStep: Sendable {
    /// An interim response sent once `afterBytes` content bytes were read (0: right after the head).
    public struct Interim: Sendable {
        public var afterBytes: Int64
        public var head: ResponseHead

        public init(afterBytes: Int64 = 0, _ head: ResponseHead) {
            self.afterBytes = afterBytes
            self.head = head
        }
    }

    /// How the request ends.
    public enum Ending: Sendable {
        /// Send this final response (`Content-Length: 0` added when it has no framing); the connection stays open
        /// when the whole body was read and the response allows it.
        case respond(ResponseHead)
        /// Close with a TCP RST.
        case reset
        /// Close with a FIN and no response (a lost final response).
        case close
        /// Send these bytes as they are (a malformed response, say), then close.
        case raw([UInt8])
        /// Answer nothing and keep the connection open until the client closes it (or `patience` passes).
        case stall
    }

    public var interims: [Interim]
    /// Read at most this many content bytes, then end (nil: the whole body).
    public var bodyLimit: Int64?
    public var ending: Ending

    public init(interims: [Interim] = [], bodyLimit: Int64? = nil, ending: Ending) {
        self.interims = interims
        self.bodyLimit = bodyLimit
        if case .respond(var head) = ending, !head.fields.contains("Content-Length"),
            !head.fields.contains("Transfer-Encoding")
        {
            head.fields.append(name: "Content-Length", value: "0")
            self.ending = .respond(head)
        } else {
            self.ending = ending
        }
    }

    /// Reads the whole body, then answers `status` with `fields`.
    public init(interims: [Interim] = [], bodyLimit: Int64? = nil, respond status: Int, fields: HTTPFields = [:]) {
        self.init(
            interims: interims, bodyLimit: bodyLimit, ending: .respond(ResponseHead(status: status, fields: fields)))
    }

    /// A 104 with `Upload-Draft-Interop-Version: version` and, when given, `Location` and `Upload-Offset`.
    public static func interim104(
        version: Int, location: String? = nil, offset: Int64? = nil, afterBytes: Int64 = 0
    ) -> Interim {
        var head = ResponseHead(status: 104, reason: "Upload Resumption Supported")
        head.fields.append(name: "Upload-Draft-Interop-Version", value: String(version))
        if let location { head.fields.append(name: "Location", value: location) }
        if let offset { head.fields.append(name: "Upload-Offset", value: String(offset)) }
        return Interim(afterBytes: afterBytes, head)
    }
}
