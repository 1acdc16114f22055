import Capture
import Foundation
import PacketSynthesis
import TestSupport
import Testing

/// A decrypted capture of two HTTP/1.1 upload connections, read back with tshark and capinfos.
struct DecryptedCaptureTests {
    private let uploadClient = IPv4Endpoint(127, 0, 0, 1, port: 40_001)
    private let resetClient = IPv4Endpoint(127, 0, 0, 1, port: 40_002)
    private let server = IPv4Endpoint(127, 0, 0, 1, port: 8080)
    private let bodyChunks = [1000, 100_000, 5000]

    private static let resumption = Array(
        "HTTP/1.1 104 Upload Resumption Supported\r\nUpload-Draft-Interop-Version: 6\r\nLocation: /uploads/1\r\n\r\n"
            .utf8)
    private static let noContent = Array("HTTP/1.1 204 No Content\r\nUpload-Offset: 106100\r\n\r\n".utf8)

    private static func patch(offset: Int, length: Int) -> [UInt8] {
        Array(
            ("PATCH /uploads/1 HTTP/1.1\r\nHost: upload.test\r\nUpload-Offset: \(offset)\r\n"
                + "Upload-Draft-Interop-Version: 6\r\nContent-Length: \(length)\r\n\r\n").utf8)
    }

    private static func body(_ count: Int, seed: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: ($0 &* 31 &+ seed) % 251) }
    }

    /// Writes the capture: stream 0 a whole PATCH with its 104 and 204, stream 1 a PATCH reset mid-body.
    /// Returns the bytes each stream's client sent.
    private func writeCapture(to path: String) throws -> (upload: [UInt8], reset: [UInt8]) {
        let capture = try DecryptedCapture(path: path)
        defer { capture.close() }
        let upload = capture.connection(client: uploadClient, server: server)
        var uploadSent = Self.patch(offset: 100, length: bodyChunks.reduce(0, +))
        send(uploadSent, on: upload, from: .client)
        send(Self.resumption, on: upload, from: .server)
        for (index, count) in bodyChunks.enumerated() {
            let chunk = Self.body(count, seed: index)
            send(chunk, on: upload, from: .client)
            uploadSent += chunk
        }
        send(Self.noContent, on: upload, from: .server)
        upload.finish(from: .client)
        upload.finish(from: .server)

        let reset = capture.connection(client: resetClient, server: server)
        let resetSent = Self.patch(offset: 0, length: 50_000) + Self.body(20_000, seed: 9)
        send(resetSent, on: reset, from: .client)
        reset.reset(from: .client)
        send([1, 2, 3], on: reset, from: .server)
        #expect(capture.firstError == nil)
        return (uploadSent, resetSent)
    }

    private func send(_ bytes: [UInt8], on connection: CapturedConnection, from direction: CapturedConnection.Direction)
    {
        bytes.withUnsafeBytes { connection.data($0, from: direction) }
    }

    @Test func tsharkShowsThePatchThe104AndTheReset() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let path = folder.path + "/decrypted.pcap"
        let sent = try writeCapture(to: path)

        let patches = try Tshark.fields(
            path, filter: "http.request.method==PATCH", ["tcp.stream", "http.request.method", "http.request.line"])
        let upload = try #require(patches.first { $0.first == "0" })
        #expect(upload[1] == "PATCH")
        #expect(upload[2].contains("Upload-Offset: 100\\r\\n"))
        let interim = try Tshark.fields(
            path, filter: "http.response.code==104", ["http.response.code", "http.location"])
        #expect(interim == [["104", "/uploads/1"]])
        let final = try Tshark.fields(path, filter: "http.response", ["http.response.code"])
        #expect(final == [["104"], ["204"]])
        let resets = try Tshark.fields(path, filter: "tcp.flags.reset==1", ["tcp.stream", "tcp.seq"])
        #expect(resets == [["1", String(sent.reset.count + 1)]])
    }

    /// One read can carry a 104 and the final answer after it; the capture keeps them in one segment, as read, and
    /// tshark shows both messages in that packet. Reading only a packet's first value (the proxy command test's
    /// flaky reading under load, issue 37) sees the 104 alone: the negative control of `Tshark.values`.
    @Test func twoAnswersInOneSegmentAreBothInThePacket() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let path = folder.path + "/coalesced.pcap"
        let capture = try DecryptedCapture(path: path)
        let upload = capture.connection(client: uploadClient, server: server)
        send(Self.patch(offset: 100, length: 3) + [1, 2, 3], on: upload, from: .client)
        send(Self.resumption + Self.noContent, on: upload, from: .server)
        upload.finish(from: .client)
        upload.finish(from: .server)
        capture.close()

        let packets = try Tshark.fields(path, filter: "http.response", ["http.response.code"])
        #expect(packets == [["104,204"]], "both answers in one packet, as tshark lists a field's occurrences")
        #expect(try Tshark.values(path, filter: "http.response", "http.response.code") == ["104", "204"])
    }

    @Test func tsharkFindsNoMalformedPacketsOrBadChecksums() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let path = folder.path + "/decrypted.pcap"
        _ = try writeCapture(to: path)
        #expect(try Tshark.problems(path) == [])
        #expect(try Tshark.lines(["-r", path]).count == 19)
        let summary = try ExternalTool.capinfos.run(["-c", "-T", "-r", path])
        #expect(summary.hasSuffix("\t19\n"))
        let conversations = try Tshark.lines(["-r", path, "-q", "-z", "conv,tcp"]).filter { $0.contains("<->") }
        #expect(conversations.count == 2)
        #expect(conversations.allSatisfy { $0.hasPrefix("127.0.0.1:4000") && $0.contains("127.0.0.1:8080") })
    }

    @Test func followReassemblesBothStreamsByteExact() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let path = folder.path + "/decrypted.pcap"
        let sent = try writeCapture(to: path)
        let upload = try Tshark.follow(path, stream: 0)
        #expect(upload.client.count == sent.upload.count)
        #expect(upload.client == sent.upload)
        #expect(upload.server == Self.resumption + Self.noContent)
        let reset = try Tshark.follow(path, stream: 1)
        #expect(reset.client == sent.reset)
        #expect(reset.server.isEmpty)
    }

    @Test func connectionsOnManyThreadsShareOneFileIntact() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let capture = try DecryptedCapture(path: folder.path + "/threads.pcap")
        let group = DispatchGroup()
        let ports: [UInt16] = [41_001, 41_002, 41_003, 41_004]
        for port in ports {
            group.enter()
            Thread.detachNewThread { [uploadClient, server] in
                var client = uploadClient
                client.port = port
                let connection = capture.connection(client: client, server: server)
                for round in 0..<20 {
                    Self.body(500 * round + Int(port % 7), seed: Int(port)).withUnsafeBytes {
                        connection.data($0, from: round % 3 == 2 ? .server : .client)
                    }
                }
                connection.reset(from: .server)
                group.leave()
            }
        }
        group.wait()
        capture.close()
        #expect(capture.firstError == nil)
        #expect(try Tshark.problems(capture.path) == [])
        for stream in ports.indices {
            let followed = try Tshark.follow(capture.path, stream: stream)
            let port = try #require(UInt16(followed.node.split(separator: ":").last ?? ""))
            let sent = (0..<20).filter { $0 % 3 != 2 }.flatMap { Self.body(500 * $0 + Int(port % 7), seed: Int(port)) }
            #expect(followed.client == sent, "stream \(stream), client port \(port)")
        }
    }

    @Test func unwritablePathNamesTheFile() {
        let path = "/nonexistent-squall-folder/decrypted.pcap"
        #expect {
            try DecryptedCapture(path: path)
        } throws: { error in
            let error = error as? CaptureError
            return error?.code == .open && error?.detail.contains(path) == true
        }
    }

    @Test func writeFailureIsKeptAndLaterEventsAreSkipped() throws {
        // /dev/full accepts the open and the buffered header, then every flush fails with ENOSPC.
        let capture = try DecryptedCapture(path: "/dev/full")
        let connection = capture.connection(client: uploadClient, server: server)
        capture.sync()
        let error = try #require(capture.firstError)
        #expect(error.code == .write)
        #expect(error.detail.contains("/dev/full"))
        send([1, 2, 3], on: connection, from: .client)
        capture.close()
        #expect(capture.firstError == error)
    }
}
