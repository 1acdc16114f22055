import ControlAPI
import Foundation
import HTTPExchange
import HTTPWire
import SquallNet

/// One control-API connection on its own thread: reads requests with `HTTPServerStream`, collects each body up to
/// the handler's `maxBodyBytes`, answers through `ControlAPIHandler.handle`, and keeps the connection alive while
/// both sides allow it (RFC 9112 §9.3).
///
///     head ──▶ Content-Length > max? ──413, close
///       │──▶ Expect: 100-continue? ──▶ 100 Continue
///       └──▶ body (> max ──413, close) ──▶ handle ──▶ response ──▶ keep-alive? next head : close
///     malformed bytes anywhere ──400, close     first head late ──408, close     peer gone or idle ──close
struct ControlConnection {
    /// How long a body may pause between reads, and a response wait to be written. Default 10 s.
    static let ioTimeout: Duration = .seconds(10)

    let server: HTTPServerStream
    let handler: ControlAPIHandler
    /// The head and idle timeouts (the listener's `ListenerLimits`).
    let limits: ListenerLimits

    /// Whether the server is stopping (an event stream then ends at its next wake-up).
    let stopping: @Sendable () -> Bool

    init(
        stream: PlainStream, handler: ControlAPIHandler, limits: ListenerLimits,
        stopping: @escaping @Sendable () -> Bool = { false }
    ) {
        self.server = HTTPServerStream(stream: stream, bufferSize: 16 * 1024)
        self.handler = handler
        self.limits = limits
        self.stopping = stopping
    }

    /// Serves requests until the connection ends; the first head must be whole by `firstHeadDeadline`.
    func run(firstHeadDeadline: ContinuousClock.Instant) {
        do {
            var next = try server.firstHead(by: firstHeadDeadline)
            while let head = next {
                guard try exchange(head) else { break }
                next = try server.nextHead(idleTimeout: limits.idleTimeout, headTimeout: limits.headTimeout)
            }
        } catch let error as HTTPExchangeError where error.code == .headTimeout {
            refuse(ControlAPIError(.requestTimeout, "the request head did not arrive in time"))
        } catch let error as HTTPExchangeError where error.code == .malformed {
            refuse(ControlAPIError(.badRequest, "malformed HTTP request: \(error.wireError?.detail ?? error.detail)"))
        } catch let error as HTTPExchangeError where error.code == .bodyTooLarge {
            refuse(ControlAPIError(.bodyTooLarge, error.detail))
        } catch {
            return
        }
    }

    /// Reads the body of `head`, answers it; returns whether the connection stays open.
    private func exchange(_ head: RequestHead) throws -> Bool {
        let body = try server.collectBody(of: head, limit: handler.configuration.maxBodyBytes, timeout: Self.ioTimeout)
        let keepAlive = head.keepAlive && server.keepAlive
        var response = handler.respond(head, body: body)
        if let from = response.eventStreamFrom {
            try server.send(response.head, timeout: Self.ioTimeout)
            try stream(from: from)
            return false
        }
        if !keepAlive { response.head.fields.append(name: "Connection", value: "close") }
        try server.send(response.head, body: response.body, timeout: Self.ioTimeout)
        return keepAlive
    }

    /// How long an event stream waits for transcript lines before it checks on the peer; a comment goes out after
    /// `heartbeat` without lines, so that a peer that left is noticed and proxies in between keep the stream.
    static let streamWait: Duration = .seconds(1)
    static let heartbeat: Duration = .seconds(15)
    /// The shortest time between two writes of lines: a busy transcript goes out in batches, at most five a second,
    /// so that an open dashboard wakes (and takes CPU from the uploads it shows) a few times a second, not once per
    /// line.
    static let batchInterval: Duration = .milliseconds(200)

    /// Writes the transcript as server-sent events from index `from` until a write fails (the peer left), the
    /// server stops, or the proxy is gone.
    private func stream(from start: Int) throws {
        var next = start
        var quiet = Duration.zero
        while !stopping(), let (text, after) = handler.events(from: next, wait: Self.streamWait) {
            next = after
            if text.isEmpty {
                quiet += Self.streamWait
                guard quiet >= Self.heartbeat else { continue }
                quiet = .zero
                try server.sendBody(Array(": still here\n\n".utf8), timeout: Self.ioTimeout)
            } else {
                quiet = .zero
                let sent = ContinuousClock.now
                try server.sendBody(Array(text.utf8), timeout: Self.ioTimeout)
                // Lines that come meanwhile wait in the transcript for the next batch.
                let pause = Self.batchInterval - (ContinuousClock.now - sent)
                if pause > .zero { Thread.sleep(forTimeInterval: pause / .seconds(1)) }
            }
        }
    }

    /// Answers `error` with `Connection: close`, then drains before closing (at most 1 MiB, for at most a second)
    /// so that the unread rest of the request does not reset the connection before the peer has read the response.
    private func refuse(_ error: ControlAPIError) {
        var (head, body) = ControlAPIHandler.response(for: error)
        head.fields.append(name: "Connection", value: "close")
        guard (try? server.send(head, body: body, timeout: Self.ioTimeout)) != nil else { return }
        server.drainBeforeClose(timeout: .seconds(1))
    }
}
