/// `proxy-upload`: one large streaming POST through the proxy to a `proxy-responder`, which counts the content.
///
/// ```
/// squall-bench proxy-upload --to 127.0.0.1:P --size 4GiB --ca-file DIR/ca.pem
///   # → proxy-upload bytes=4294967296 seconds=… mbps=… status=200 received=4294967296
/// ```
/// The body is a `BodyPattern` (one 256 KiB block repeated), written block by block after a head with
/// `Content-Length`: the client never holds more than a block. Timed from the connect to the end of the
/// response; fails unless the responder counted every byte.
enum ProxyUploadBench: BenchCommand {
    static let name = "proxy-upload"
    static let usage = "--to ADDR --size N [--seed N] [--ca-file FILE] [--server-name NAME]"
    static let summary =
        "POSTs N bytes with Content-Length in one streaming request; prints proxy-upload bytes= seconds= mbps= "
        + "status= received="

    static func run(_ options: BenchOptions) throws {
        let body = BodyPattern(length: try options.bytes("size"), seed: UInt64(try options.count("seed") ?? 1))
        let clock = ContinuousClock()
        let started = clock.now
        let connection = try ProxyClientConnection(options)
        try connection.send(try ProxyClientConnection.head(.post, "/upload", contentLength: body.length))
        var sent: Int64 = 0
        while sent < body.length {
            let piece = body.bytes(from: sent)
            try connection.stream.writeAll(piece)
            sent += Int64(piece.count)
        }
        let response = try connection.readResponse()
        let throughput = Throughput(bytes: sent, duration: clock.now - started)
        BenchMain.emit(throughput.line(name) + " status=\(response.status) received=\(response.text)")
        guard response.status == 200, response.text == String(body.length) else {
            throw BenchError("the responder answered \(response.status) and counted '\(response.text)' bytes")
        }
    }
}
