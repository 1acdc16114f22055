import SquallNet

/// `proxy-rate`: how fast a stream arrives through a bandwidth-faulted proxy, read from a `proxy-feed`.
///
/// ```
/// squall-bench proxy-feed --listen 127.0.0.1:0                      # → proxy-feed listening=127.0.0.1:F
/// squall-bench proxy --listen 127.0.0.1:0 --upstream 127.0.0.1:F --mode tcp \
///     --fault '{"name": "bw", "action": "bandwidth", "rate": "1MiB", "direction": "downstream"}'   # → …:P
/// squall-bench proxy-rate --to 127.0.0.1:P --bytes 2MiB
///   # → proxy-rate bytes=2097152 seconds=2.0013 bytes_per_second=1047900
/// ```
/// The client asks for N bytes with one line (`N\n`), reads until the feed's end of stream and divides N by the
/// time from before the connect to that end: so the rate covers every byte through the limiter.
enum ProxyRateBench: BenchCommand {
    static let name = "proxy-rate"
    static let usage = "--to ADDR --bytes N"
    static let summary =
        "asks a proxy-feed (through the proxy) for N bytes and reads them to the end; prints proxy-rate bytes= "
        + "seconds= bytes_per_second="

    static func run(_ options: BenchOptions) throws {
        let count = try options.bytes("bytes")
        let clock = ContinuousClock()
        let started = clock.now
        let stream = PlainStream(socket: try TCPConnector.connect(to: options.address("to")))
        defer { stream.close() }
        try stream.writeAll(Array("\(count)\n".utf8))
        let received = try PlainEndpoints.drain(stream)
        let seconds = (clock.now - started).seconds
        guard received == count else { throw BenchError("received \(received) of \(count) bytes") }
        let rate = seconds > 0 ? Double(count) / seconds : 0
        BenchMain.emit("\(name) bytes=\(count) seconds=\(fixed(seconds, 4)) bytes_per_second=\(Int64(rate))")
    }
}

/// `proxy-feed`: sends each client as many bytes as its first line asks for, then ends the stream.
enum ProxyFeedCommand: BenchCommand {
    static let name = "proxy-feed"
    static let usage = "--listen ADDR"
    static let summary =
        "reads a decimal byte count and a newline from each connection, sends that many bytes, ends the stream; "
        + "prints 'proxy-feed listening=ADDR'; runs until SIGINT or SIGTERM"
    /// The longest request line: a byte count and its newline.
    static let lineLimit = 24

    static func run(_ options: BenchOptions) throws {
        let signals = ProxySignals()
        let loop = try AcceptLoop(
            address: options.address("listen"), configuration: AcceptLoopConfiguration(name: "feed"), handler: serve)
        BenchMain.emit("\(name) listening=\(loop.address)")
        signals.wait()
        loop.stop()
    }

    static func serve(_ socket: Socket) {
        let stream = PlainStream(socket: socket)
        do {
            try PlainEndpoints.send(try requestedCount(stream), to: stream)
            try stream.shutdownWrite(deadline: nil)
            _ = try PlainEndpoints.drain(stream)
            stream.close()
        } catch {
            stream.abort()
        }
    }

    /// Reads the request line a byte at a time (so nothing after it is consumed) and returns its count.
    private static func requestedCount(_ stream: PlainStream) throws -> Int64 {
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while line.count < lineLimit {
            let count = try withUnsafeMutableBytes(of: &byte) { try stream.readSome(into: $0) }
            guard count > 0 else { break }
            if byte == UInt8(ascii: "\n") {
                guard let value = Int64(String(decoding: line, as: UTF8.self)), value >= 0 else { break }
                return value
            }
            line.append(byte)
        }
        throw BenchError("expected a byte count and a newline")
    }
}
