import SquallNet

/// `direct-plain`: source → sink with nothing in between, the baseline for `relay-plain`.
enum DirectPlainBench: BenchCommand {
    static let name = "direct-plain"
    static let usage = "--bytes N"
    static let summary =
        "source → sink in one process over 127.0.0.1, no relay; prints direct-plain bytes= seconds= mbps="

    static func run(_ options: BenchOptions) throws {
        let count = try options.bytes("bytes")
        let sinkResults = ResultBox<Throughput>()
        let sink = try PlainEndpoints.sink(on: SocketAddress(parsing: "127.0.0.1:0")) { sinkResults.put($0) }

        let throughput = try PlainEndpoints.push(count, to: sink.address)
        let received = try sinkResults.take().bytes
        sink.stop()
        guard received == count else { throw BenchError("sink received \(received) of \(count) bytes") }
        BenchMain.emit(throughput.line(name))
    }
}
