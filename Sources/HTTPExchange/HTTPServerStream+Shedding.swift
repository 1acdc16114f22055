import HTTPWire
import SquallNet

extension HTTPServerStream {
    /// Answers a connection its listener has no room for (`AcceptLoopConfiguration.shed`): `503 Service
    /// Unavailable` with `Connection: close`, `Retry-After: 1` and `message` (why, and what raises the limit) as a
    /// plain-text body, written at once without reading the request; then a short lingering close (64 KiB, 1 s) so
    /// that the request the peer is still sending does not turn the close into an RST before it read the answer.
    /// The caller closes the socket.
    public static func shed(_ stream: any ByteStream, message: String, timeout: Duration = .seconds(1)) {
        let server = HTTPServerStream(stream: stream, bufferSize: 16 * 1024)
        let body = Array((message + "\n").utf8)
        let head = ResponseHead(
            status: 503, reason: ResponseHead.standardReason(for: 503),
            fields: [
                "Content-Type": "text/plain; charset=utf-8", "Content-Length": String(body.count),
                "Connection": "close", "Retry-After": "1",
            ])
        guard (try? server.send(head, body: body, timeout: timeout)) != nil else { return }
        server.drainBeforeClose(maxBytes: 64 * 1024, timeout: timeout)
    }
}
