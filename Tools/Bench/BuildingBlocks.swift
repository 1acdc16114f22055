import SquallNet

/// `source`: pushes N bytes to an address and times them until the far end closes.
enum SourceCommand: BenchCommand {
    static let name = "source"
    static let usage = "--to ADDR --bytes N"
    static let summary = "sends N bytes, waits for the far end's close; prints source bytes= seconds= mbps="

    static func run(_ options: BenchOptions) throws {
        let throughput = try PlainEndpoints.push(options.bytes("bytes"), to: options.address("to"))
        BenchMain.emit(throughput.line(name))
    }
}

/// `sink`: counts what each connection sends.
enum SinkCommand: BenchCommand {
    static let name = "sink"
    static let usage = "--listen ADDR [--connections N]"
    static let summary =
        "reads each connection to its end; prints 'sink listening=ADDR', then sink bytes= … per connection"

    static func run(_ options: BenchOptions) throws {
        let results = ResultBox<Throughput>()
        let sink = try PlainEndpoints.sink(on: options.address("listen")) { results.put($0) }
        BenchMain.emit("sink listening=\(sink.address)")
        try serve(connections: options.count("connections")) {
            BenchMain.emit(try results.take(seconds: .max).line(name))
        }
        sink.stop()
    }
}

/// Runs `each` once per connection: `connections` times, or for ever when nil.
func serve(connections: Int?, _ each: () throws -> Void) throws {
    var served = 0
    while connections.map({ served < $0 }) ?? true {
        try each()
        served += 1
    }
}
