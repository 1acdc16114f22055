import Glibc
import HTTPWire
import SquallNet
import StructuredFields
import Synchronization
import TLSKit

/// A minimal plain-HTTP upload endpoint for the smoke check: it answers a creation request with a
/// `104 Upload Resumption Supported` (Location, interop version) before reading the body, streams the body
/// into a SHA-256, and ends with `201 Created` carrying `Upload-Offset`, `Upload-Complete: ?1` and the
/// digest as `Repr-Digest` (RFC 9530). It is not the reference server: no storage, no resumption.
final class SmokeUploadEndpoint: Sendable {
    /// What the endpoint received for one upload.
    struct Received: Sendable, Equatable {
        var location: String
        var interopVersion: Int64?
        var byteCount: Int
        var sha256: String
    }

    /// What the connection threads record.
    private final class Ledger: Sendable {
        let uploads = Mutex<[Received]>([])
        let failures = Mutex<[String]>([])
        let connections = Atomic<Int>(0)
    }

    private let loop: AcceptLoop
    private let ledger: Ledger

    var address: SocketAddress { loop.address }

    /// Everything received so far, in completion order.
    var received: [Received] { ledger.uploads.withLock { $0 } }

    /// Why connections failed, if any did.
    var failures: [String] { ledger.failures.withLock { $0 } }

    /// Starts listening on 127.0.0.1 with a free port; each connection must finish within `timeout`.
    init(timeout: Duration) throws {
        let ledger = Ledger()
        self.ledger = ledger
        self.loop = try AcceptLoop(
            address: SocketAddress(parsing: "127.0.0.1:0"),
            configuration: AcceptLoopConfiguration(name: "smoke-endpoint")
        ) { socket in
            let number = ledger.connections.wrappingAdd(1, ordering: .relaxed).newValue
            do {
                let upload = try SmokeUploadEndpoint.serve(
                    PlainStream(socket: socket), location: "/upload/\(number)", timeout: timeout)
                ledger.uploads.withLock { $0.append(upload) }
            } catch {
                ledger.failures.withLock { $0.append("\(error)") }
            }
        }
    }

    func stop() {
        loop.stop()
        _ = loop.waitUntilIdle(timeout: .seconds(5))
    }

    /// Serves one connection: one creation request, then closes.
    private static func serve(_ stream: PlainStream, location: String, timeout: Duration) throws -> Received {
        defer { stream.close() }
        let deadline = ContinuousClock.now.advanced(by: timeout)
        var parser = HTTP1Parser(role: .server)
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var upload: Received?
        let digest = SHA256Digest()
        while true {
            let count = try buffer.withUnsafeMutableBytes { try stream.readSome(into: $0, deadline: deadline) }
            let events = count == 0 ? try parser.finish() : try parser.feed(buffer[..<count])
            for event in events {
                switch event {
                case .requestHead(let head):
                    upload = try accept(head, location: location, on: stream, deadline: deadline)
                case .body(let bytes):
                    upload?.byteCount += bytes.count
                    bytes.withUnsafeBytes { digest.update($0) }
                case .end:
                    guard var finished = upload else { throw HarnessError("request ended before its head") }
                    let digestBytes = digest.finalize()
                    finished.sha256 = SHA256Digest.hexString(digestBytes)
                    try respondCreated(finished, digest: digestBytes, on: stream, deadline: deadline)
                    return finished
                case .responseHead, .upgrade, .opaque:
                    throw HarnessError("unexpected \(event) from a client")
                }
            }
            if count == 0 { throw HarnessError("client closed before the request ended") }
        }
    }

    private static func accept(
        _ head: RequestHead, location: String, on stream: PlainStream, deadline: ContinuousClock.Instant
    ) throws -> Received {
        guard head.method == .post, head.target == "/upload" else {
            try send(
                ResponseHead(status: 404, reason: "Not Found", fields: ["Content-Length": "0"]), on: stream, deadline)
            throw HarnessError("unexpected request \(head.method) \(head.target)")
        }
        let version = try head.fields["upload-draft-interop-version"].flatMap {
            try StructuredFieldParser.parseItem($0).asInteger()
        }
        var interim = ResponseHead(status: 104, reason: "Upload Resumption Supported", fields: ["Location": location])
        if let version { interim.fields.append(name: "Upload-Draft-Interop-Version", value: String(version)) }
        try send(interim, on: stream, deadline)
        return Received(location: location, interopVersion: version, byteCount: 0, sha256: "")
    }

    private static func respondCreated(
        _ upload: Received, digest: [UInt8], on stream: PlainStream, deadline: ContinuousClock.Instant
    ) throws {
        let digestField: FieldDictionary = ["sha-256": .item(Item(.byteSequence(digest)))]
        let head = ResponseHead(
            status: 201, reason: "Created",
            fields: [
                "Location": upload.location,
                "Upload-Offset": try StructuredFieldSerializer.serialize(Item(.integer(Int64(upload.byteCount)))),
                "Upload-Complete": try StructuredFieldSerializer.serialize(Item(.boolean(true))),
                "Repr-Digest": try StructuredFieldSerializer.serialize(digestField),
                "Content-Length": "0",
            ])
        try send(head, on: stream, deadline)
    }

    private static func send(_ head: ResponseHead, on stream: PlainStream, _ deadline: ContinuousClock.Instant) throws {
        try stream.writeAll(try HTTP1Serializer.serialize(head), deadline: deadline)
    }
}
