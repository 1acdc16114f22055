import HTTPWire
import SquallNet

/// `proxy-responder`: the HTTP/1.1 endpoint behind the proxy in the latency, connection and upload benchmarks.
///
/// Each request's content is read and counted, never kept; then the answer is `200 OK` with the count as its
/// content (`5` for a 5-byte body, `0` for a GET), and the connection stays open for the next request.
/// ```
/// squall-bench proxy-responder --listen 127.0.0.1:0     # → proxy-responder listening=127.0.0.1:R
/// ```
enum ProxyResponderCommand: BenchCommand {
    static let name = "proxy-responder"
    static let usage = "--listen ADDR"
    static let summary =
        "answers every HTTP/1.1 request with 200 and the byte count of its content (read, never kept), keep-alive; "
        + "prints 'proxy-responder listening=ADDR'; runs until SIGINT or SIGTERM"
    /// Connections served at once: enough for the 1,000 held through the proxy.
    static let maximumConnections = 4096
    static let readSize = 64 * 1024

    static func run(_ options: BenchOptions) throws {
        let signals = ProxySignals()
        let loop = try AcceptLoop(
            address: options.address("listen"),
            configuration: AcceptLoopConfiguration(maximumConnections: maximumConnections, name: "responder"),
            handler: serve)
        BenchMain.emit("\(name) listening=\(loop.address)")
        signals.wait()
        loop.stop()
    }

    /// Answers the requests of one connection until the client closes it (or breaks HTTP: then an RST).
    static func serve(_ socket: Socket) {
        socket.setNoDelay()
        serve(PlainStream(socket: socket))
    }

    /// Answers the requests of one stream (plain or TLS) until the client closes it (or breaks HTTP: then an RST).
    static func serve(_ stream: some ByteStream) {
        do {
            try answer(stream)
            stream.close()
        } catch {
            stream.abort()
        }
    }

    private static func answer(_ stream: some ByteStream) throws {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: readSize, alignment: 16)
        defer { buffer.deallocate() }
        var parser = HTTP1Parser(role: .server)
        var events: [HTTP1Event] = []
        var received = 0
        while true {
            let count = try stream.readSome(into: buffer)
            guard count > 0 else { return }
            events.removeAll(keepingCapacity: true)
            try parser.feed(Array(buffer[..<count])[...], into: &events)
            for event in events {
                switch event {
                case .requestHead: received = 0
                case .body(let bytes): received += bytes.count
                case .end:
                    let content = String(received)
                    try stream.writeAll(
                        Array("HTTP/1.1 200 OK\r\nContent-Length: \(content.utf8.count)\r\n\r\n\(content)".utf8))
                    guard parser.keepAlive else { return }
                default: break
                }
            }
        }
    }
}
