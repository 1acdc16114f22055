import SquallNet

/// `source-tls`: pushes N bytes over TLS to an address and times them until the far end closes.
enum SourceTLSCommand: BenchCommand {
    static let name = "source-tls"
    static let usage = "--to ADDR --bytes N --ca-file FILE [--server-name NAME]"
    static let summary =
        "TLS client (trusting FILE, asking for NAME, default localhost): sends N bytes, then close_notify, waits "
        + "for the far end's close; prints source-tls bytes= seconds= mbps= version= cipher= close=notify|fin"

    static func run(_ options: BenchOptions) throws {
        let context = try TLSEndpoints.clientContext(caFile: options.string("ca-file"))
        let push = try TLSEndpoints.push(
            options.bytes("bytes"), to: options.address("to"), context: context,
            serverName: options.string("server-name", default: TLSEndpoints.defaultHost))
        BenchMain.emit(push.line(name))
    }
}
