import SquallNet

/// `relay-to`: a standalone relay, so a script can compare it with another proxy in the same path.
///
/// The comparison with nginx used for the figures in the relay report (each line waits for `listening=`):
/// ```
/// squall-bench sink --listen 127.0.0.1:0                      # → sink listening=127.0.0.1:S
/// squall-bench relay-to --listen 127.0.0.1:0 --upstream 127.0.0.1:S   # → relay-to listening=127.0.0.1:R
/// nginx -c stream.conf    # load_module ngx_stream_module.so; worker_processes 1;
///                         # stream { server { listen 127.0.0.1:N; proxy_pass 127.0.0.1:S;
///                         #                   proxy_half_close on; proxy_buffer_size 256k; } }
/// squall-bench source --to 127.0.0.1:S --bytes 1GiB           # direct
/// squall-bench source --to 127.0.0.1:R --bytes 1GiB           # through the Swift relay
/// squall-bench source --to 127.0.0.1:N --bytes 1GiB           # through nginx
/// ```
enum RelayToCommand: BenchCommand {
    static let name = "relay-to"
    static let usage = "--listen ADDR --upstream ADDR [--buffer-size N] [--connections N]"
    static let summary =
        "relays each connection to the upstream; prints 'relay-to listening=ADDR', then one report line per connection"

    static func run(_ options: BenchOptions) throws {
        let upstream = try options.address("upstream")
        let configuration = RelayConfiguration(bufferSize: Int(try options.bytes("buffer-size", default: 256 * 1024)))
        let reports = ResultBox<RelayReport>()
        let relay = try PlainEndpoints.relay(on: options.address("listen"), to: upstream, configuration: configuration)
        {
            reports.put($0)
        }
        BenchMain.emit("relay-to listening=\(relay.address)")
        try serve(connections: options.count("connections")) {
            BenchMain.emit("relay-to \(try reports.take(seconds: .max))")
        }
        relay.stop()
    }
}

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
