import ControlAPI
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
///     malformed bytes anywhere ──400, close        peer gone or silent ──close
struct ControlConnection {
    /// How long a kept-alive connection may wait for its next request head. Default 60 s.
    static let idleTimeout: Duration = .seconds(60)
    /// How long a started head may take, a body may pause between reads, and a response wait to be written.
    /// Default 10 s.
    static let ioTimeout: Duration = .seconds(10)

    let server: HTTPServerStream
    let handler: ControlAPIHandler

    init(stream: PlainStream, handler: ControlAPIHandler) {
        self.server = HTTPServerStream(stream: stream, bufferSize: 16 * 1024)
        self.handler = handler
    }

    /// Serves requests until the connection ends.
    func run() {
        do {
            while let head = try server.nextHead(idleTimeout: Self.idleTimeout, headTimeout: Self.ioTimeout) {
                guard try exchange(head) else { break }
            }
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
        var (response, content) = handler.handle(head, body: body)
        if !keepAlive { response.fields.append(name: "Connection", value: "close") }
        try server.send(response, body: content, timeout: Self.ioTimeout)
        return keepAlive
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
