import SquallNet

/// `relay-plain`: source → Relay (AcceptLoop + Relay, one process) → sink, all on loopback.
enum RelayPlainBench: BenchCommand {
    static let name = "relay-plain"
    static let usage = "--bytes N [--buffer-size N]"
    static let summary =
        "source → Swift relay → sink in one process over 127.0.0.1; prints relay-plain bytes= seconds= mbps="

    static func run(_ options: BenchOptions) throws {
        let count = try options.bytes("bytes")
        let bufferSize = try options.bytes("buffer-size", default: 256 * 1024)
        let loopback = try SocketAddress(parsing: "127.0.0.1:0")
        let sinkResults = ResultBox<Throughput>()
        let sink = try PlainEndpoints.sink(on: loopback) { sinkResults.put($0) }
        let reports = ResultBox<RelayReport>()
        let relay = try PlainEndpoints.relay(
            on: loopback, to: sink.address, configuration: RelayConfiguration(bufferSize: Int(bufferSize))
        ) { reports.put($0) }

        let throughput = try PlainEndpoints.push(count, to: relay.address)
        let received = try sinkResults.take().bytes
        let report = try reports.take()
        relay.stop()
        sink.stop()
        guard received == count, report.isClean else {
            throw BenchError("sink received \(received) of \(count) bytes; \(report)")
        }
        BenchMain.emit(throughput.line(name))
    }
}
