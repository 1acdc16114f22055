import Foundation
import Glibc
import HTTPWire
import ResumableUpload
import SquallNet
import TestSupport
import Testing
import UploadServer

/// A peer's RST that lands while the server writes a progress 104 (interop 5 and later): the failed write must
/// not abandon the body bytes already in the socket's receive queue. The server keeps exactly the bytes up to the
/// cut, as after a reset that lands while it reads.
struct ResetWhileSendingTests {
    static let version = InteropVersion(rawValue: 8)!
    static let length = 4 << 20
    /// The cut: an odd byte, inside a read, with many chunks (each followed by a 104) still queued behind it.
    static let cut = 3_000_017
    static let runs = 20
    /// The bytes an earlier request stored before an append.
    static let head = 10_000

    /// The request whose body is cut.
    enum Body: Sendable, CustomStringConvertible {
        /// A creation, its 104 with `Location` read first.
        case creation
        /// A PATCH completing an upload created with its first `head` bytes.
        case append

        var description: String { self == .creation ? "creation" : "append" }
    }

    /// Bodies cut at an exact byte by an RST sent once the server's kernel acknowledged every byte before it,
    /// while the server, a 104 after every read, still works through them: each upload keeps exactly `cut` bytes,
    /// and the log has its body interrupted at `cut`.
    @Test(arguments: [
        (ServerFixture.Transport.http, Body.creation), (.https, .creation), (.http, .append),
    ])
    func aResetWhileProgressIsWrittenKeepsEveryAcknowledgedByte(transport: ServerFixture.Transport, body: Body)
        throws
    {
        let folder = try TLSFixtures.TemporaryDirectory()
        let logPath = folder.file("server.log")
        let fixture = try ServerFixture(
            UploadProtocolConfiguration(progressInterval: 1, progressLimit: nil, progressSpacing: .zero),
            transport: transport
        ) {
            $0.logPath = logPath
        }
        let data = ServerFixture.content(Self.cut, seed: 13)
        var ids: [String] = []
        for _ in 0..<Self.runs {
            let (client, id) = try Self.start(body, on: fixture, data: data)
            try Self.resetOnceAcknowledged(client)
            #expect(fixture.server.waitUntilIdle(timeout: .seconds(10)))
            let record = try #require(fixture.record(id))
            #expect(record.durableOffset == Int64(Self.cut), "run \(ids.count)")
            #expect(!record.complete)
            ids.append(id)
        }
        fixture.server.stop()

        let interruptions = try Self.interruptions(logPath)
        #expect(interruptions.map(\.upload) == ids)
        #expect(interruptions.allSatisfy { $0.offset == Int64(Self.cut) }, "\(interruptions)")
        // The runs must have cut a 104 being written (the case this is about), not only a read.
        let failedWrite = transport == .http ? "connectionReset: send" : "TLS write"
        #expect(interruptions.contains { $0.reason.contains(failedWrite) }, "\(interruptions)")
    }

    /// The client's HEAD after the cut can reach the server before the cut stream's thread has read what its
    /// socket still holds: the offset it reports must already count every byte sent before the cut (the server
    /// lets a stream whose peer is gone finish storing before the HEAD takes the upload over). Negative control:
    /// without that wait, the HEAD aborts the stream and reports fewer bytes.
    @Test(arguments: [Body.creation, .append])
    func aHeadRightAfterTheCutReportsEveryAcknowledgedByte(body: Body) throws {
        let fixture = try ServerFixture(
            UploadProtocolConfiguration(progressInterval: 1, progressLimit: nil, progressSpacing: .zero),
            transport: .http)
        let data = ServerFixture.content(Self.cut, seed: 17)
        for run in 0..<Self.runs {
            let (client, id) = try Self.start(body, on: fixture, data: data)
            try Self.resetOnceAcknowledged(client)
            let head = try fixture.client().request(.head, "/upload/" + id, ServerFixture.versionField(Self.version))
            #expect(head.final.fields["Upload-Offset"] == "\(Self.cut)", "run \(run): \(head.final)")
        }
        fixture.server.stop()
    }

    /// Starts `body`'s request and sends its bytes up to `cut` (not reading the 104s); the client and the upload.
    static func start(_ body: Body, on fixture: ServerFixture, data: [UInt8]) throws -> (RawHTTPClient, String) {
        let client = try fixture.client()
        let total = [("Content-Length", "\(Self.length)")]
        switch body {
        case .creation:
            try client.send(.post, "/upload", ServerFixture.creationFields(Self.version) + total)
            let id = ServerFixture.id(of: try client.readInterim().fields["Location"])
            try client.send(bytes: data)
            return (client, id)
        case .append:
            let created = try client.request(
                .post, "/upload", ServerFixture.creationFields(Self.version, complete: false),
                body: Array(data[..<Self.head]))
            let id = ServerFixture.id(of: created.interims.first?.fields["Location"])
            let rest = [("Content-Length", "\(Self.length - Self.head)")]
            let fields = ServerFixture.appendFields(Self.version, offset: Int64(Self.head)) + rest
            try client.send(.patch, "/upload/" + id, fields)
            try client.send(bytes: Array(data[Self.head...]))
            return (client, id)
        }
    }

    /// Waits until the server's kernel acknowledged every byte the client wrote (nothing left in the client's send
    /// queue), as the chaos proxy does before a fault's RST; then closes with an RST.
    static func resetOnceAcknowledged(_ client: RawHTTPClient) throws {
        let stream = client.stream
        let deadline = ContinuousClock.now + .seconds(10)
        var entries = [pollfd(fd: stream.fileDescriptor, events: 0, revents: 0)]
        while Self.unacknowledgedBytes(stream.fileDescriptor) > 0 {
            try #require(ContinuousClock.now < deadline, "the server did not acknowledge the body")
            _ = poll(&entries, 1, 1)
        }
        stream.abort()
    }

    /// Bytes in a TCP socket's send queue not yet acknowledged by the peer (`SIOCOUTQ`, which is `TIOCOUTQ`).
    static func unacknowledgedBytes(_ fd: Int32) -> Int32 {
        var count: Int32 = 0
        return ioctl(fd, UInt(TIOCOUTQ), &count) == 0 ? count : -1
    }

    /// The log's `interrupted` entries in order.
    static func interruptions(_ path: String) throws -> [(upload: String, offset: Int64, reason: String)] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return try text.split(separator: "\n").compactMap { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            guard let object, object["event"] as? String == "interrupted" else { return nil }
            let upload = try #require(object["upload"] as? String)
            let offset = try #require(object["offset"] as? Int64)
            let reason = try #require(object["reason"] as? String)
            return (upload, offset, reason)
        }
    }
}
