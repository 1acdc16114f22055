import Foundation
import SquallNet
import TLSKit

/// `relay-tls`: TLS source → TLS-terminating relay → plain sink, all in one process over loopback, with a
/// throwaway CA in a temporary folder.
enum RelayTLSBench: BenchCommand {
    static let name = "relay-tls"
    static let usage = "--bytes N [--buffer-size N]"
    static let summary =
        "TLS source → Swift TLS-terminating relay → plain sink in one process over 127.0.0.1; prints "
        + "relay-tls bytes= seconds= mbps= version= cipher= close="

    static func run(_ options: BenchOptions) throws {
        let count = try options.bytes("bytes")
        let bufferSize = try options.bytes("buffer-size", default: 256 * 1024)
        let folder = try ScratchFolder()
        defer { folder.remove() }
        let authority = try CertificateAuthority.loadOrCreate(directory: "\(folder.path)/ca")
        let loopback = try SocketAddress(parsing: "127.0.0.1:0")
        let sinkResults = ResultBox<Throughput>()
        let sink = try PlainEndpoints.sink(on: loopback) { sinkResults.put($0) }
        let outcomes = ResultBox<Result<TLSRelayed, BenchError>>()
        let relay = try TLSEndpoints.relay(
            on: loopback, to: sink.address, context: TLSEndpoints.serverContext(authority: authority),
            configuration: RelayConfiguration(bufferSize: Int(bufferSize))
        ) { outcomes.put($0) }

        let push = try TLSEndpoints.push(
            count, to: relay.address, context: TLSEndpoints.clientContext(caFile: authority.certificatePath),
            serverName: TLSEndpoints.defaultHost)
        let received = try sinkResults.take().bytes
        let relayed = try outcomes.take().get()
        relay.stop()
        sink.stop()
        guard received == count, relayed.report.isClean, push.closedCleanly else {
            throw BenchError("sink received \(received) of \(count) bytes; \(relayed)")
        }
        BenchMain.emit(push.line(name))
    }
}

/// A fresh folder under the temporary folder, for files a benchmark needs only while it runs.
private struct ScratchFolder {
    let path: String

    init() throws {
        var template = Array("\(NSTemporaryDirectory())/squall-bench-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else { throw BenchError("mkdtemp failed: errno \(errno)") }
        path = String(cString: created)
    }

    /// Removes the folder and everything in it.
    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
