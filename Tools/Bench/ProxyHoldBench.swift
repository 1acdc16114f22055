/// `proxy-hold`: opens N connections through the proxy, proves each reaches the upstream with one request, and
/// keeps them all open until SIGINT or SIGTERM, so that the script can read the proxy's memory meanwhile.
///
/// ```
/// squall-bench proxy-hold --to 127.0.0.1:P --connections 1000 --ca-file DIR/ca.pem
///   # → proxy-hold connections=1000 seconds=…   (then holds until SIGTERM)
/// ```
/// Each connection sends `GET /hold` and reads its `200` before the next one opens; the line is printed once all
/// are open.
enum ProxyHoldBench: BenchCommand {
    static let name = "proxy-hold"
    static let usage = "--to ADDR --connections N [--ca-file FILE] [--server-name NAME]"
    static let summary =
        "opens N keep-alive connections, one GET answered on each; prints proxy-hold connections= seconds=, then "
        + "holds them until SIGINT or SIGTERM"

    static func run(_ options: BenchOptions) throws {
        let signals = ProxySignals()
        let wanted = try options.count("connections") ?? 1000
        let request = try ProxyClientConnection.head(.get, "/hold")
        let clock = ContinuousClock()
        let started = clock.now
        var connections: [ProxyClientConnection] = []
        connections.reserveCapacity(wanted)
        for index in 0..<wanted {
            let connection = try ProxyClientConnection(options)
            try connection.send(request)
            let response = try connection.readResponse()
            guard response.status == 200 else {
                throw BenchError("connection \(index): status \(response.status)")
            }
            connections.append(connection)
        }
        BenchMain.emit("\(name) connections=\(connections.count) seconds=\(fixed((clock.now - started).seconds, 4))")
        signals.wait()
        connections.removeAll()
    }
}
