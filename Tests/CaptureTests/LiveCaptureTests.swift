import CPcap
import Capture
import Foundation
import HTTPExchange
import HTTPWire
import SquallNet
import TestSupport
import Testing

struct LiveCaptureTests {
    static let canCapture = Tshark.canCaptureLive

    /// Sends `text` to an echo server, ends the stream and reads the echo to its end.
    private func roundTrip(_ text: String, to address: SocketAddress) throws -> [UInt8] {
        let stream = PlainStream(socket: try TCPConnector.connect(to: address))
        defer { stream.close() }
        let deadline = ContinuousClock.now + .seconds(10)
        try stream.writeAll(Array(text.utf8), deadline: deadline)
        try stream.shutdownWrite(deadline: deadline)
        return try stream.readToEnd(limit: 1024, deadline: deadline)
    }

    private func hex(_ text: String) -> String {
        text.utf8.map { String(format: "%02x", $0) }.joined()
    }

    @Test(.enabled(if: canCapture, "live capture needs root or CAP_NET_RAW"))
    func capturesTheFilteredPortOnly() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let watched = try LoopbackServer.echo()
        let other = try LoopbackServer.echo()
        defer {
            watched.stop()
            other.stop()
        }
        let filter = LiveCapture.filter(ports: [watched.address.port])
        let capture = try LiveCapture.start(filter: filter, path: folder.path + "/live.pcap")
        #expect(try roundTrip("squall-live-watched", to: watched.address) == Array("squall-live-watched".utf8))
        #expect(try roundTrip("squall-live-other", to: other.address) == Array("squall-live-other".utf8))
        let counts = capture.stop()
        #expect(capture.stop() == counts)
        #expect(counts.captured >= 6 && counts.dropped == 0 && counts.error == nil)

        let rows = try Tshark.fields(capture.path, filter: "tcp", ["tcp.srcport", "tcp.dstport", "tcp.payload"])
        #expect(rows.count == counts.captured)
        let port = String(watched.address.port)
        #expect(rows.allSatisfy { $0[0] == port || $0[1] == port })
        let payloads = rows.map { $0[2] }.filter { !$0.isEmpty }
        #expect(payloads == [hex("squall-live-watched"), hex("squall-live-watched")])
        let summary = try ExternalTool.capinfos.run(["-E", capture.path])
        #expect(summary.contains("Ethernet"))
    }

    /// Loopback's frames reach 65,549 bytes: with a snapshot length of 65,535 they lose their last 14 bytes and a
    /// large request cannot be rebuilt. A 5 MiB PATCH is captured whole and tshark finds it. The server's receive
    /// buffer holds the whole body, so that the client's segments reach the loopback MSS however slowly the server
    /// reads (with the default buffer, a busy machine shrinks the window and no frame passes 64 KiB).
    @Test(.enabled(if: canCapture, "live capture needs root or CAP_NET_RAW"))
    func aFiveMiBPatchIsCapturedWholeAndTsharkRebuildsIt() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let server = try ScriptedServer(steps: [ScriptedStep(respond: 204)], receiveBuffer: 16 << 20)
        defer { server.stop() }
        let address = try SocketAddress(parsing: String(server.url.dropFirst("http://".count)))
        let capture = try LiveCapture.start(
            filter: LiveCapture.filter(ports: [address.port]), path: folder.path + "/wire.pcap")
        let length = 5 << 20
        let stream = PlainStream(socket: try TCPConnector.connect(to: address))
        try stream.socket.setNonBlocking(true)
        let head = RequestHead(
            method: .patch, target: "/upload/1",
            fields: ["Host": "squall", "Upload-Offset": "0", "Content-Length": String(length)])
        let response = try HTTPClientStream(stream: stream).exchange(
            head, body: RequestBody(bytes: [UInt8](repeating: 0x5a, count: length)), progressTimeout: .seconds(20))
        stream.close()
        #expect(response.head.status == 204)
        let counts = capture.stop()
        #expect(counts.dropped == 0 && counts.error == nil)
        let frames = try Tshark.fields(capture.path, filter: "tcp", ["frame.len", "frame.cap_len"])
        #expect(frames.contains { Int($0[0]) ?? 0 > 65_535 }, "loopback frames above 64 KiB were seen")
        #expect(frames.allSatisfy { $0[0] == $0[1] }, "no frame was cut")
        let patches = try Tshark.fields(
            capture.path, filter: "http.request.method == \"PATCH\"", ["http.content_length", "tcp.reassembled.length"])
        #expect(patches.count == 1)
        #expect(patches.first?.first == String(length))
        #expect((patches.first.flatMap { Int($0[1]) } ?? 0) > length, "the head and the whole body, reassembled")
    }

    @Test(.enabled(if: canCapture, "live capture needs root or CAP_NET_RAW"))
    func aBadFilterIsAFilterError() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        #expect {
            try LiveCapture.start(filter: "tcp and (port", path: folder.path + "/bad.pcap")
        } throws: { error in
            (error as? CaptureError)?.code == .filter && "\(error)".contains("tcp and (port")
        }
    }

    @Test func aMissingDeviceIsUnavailableInOneLine() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        do {
            _ = try LiveCapture.start(device: "squallnone0", filter: "tcp", path: folder.path + "/none.pcap")
            Issue.record("started a capture on a device that does not exist")
        } catch {
            #expect(error.code == .unavailable)
            #expect(error.detail.contains("'squallnone0'") && error.detail.contains("decrypted capture still works"))
            #expect(!error.detail.contains("CAP_NET_RAW"))
            #expect(!error.detail.contains("\n"))
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path + "/none.pcap"))
    }

    @Test func onlyAPermissionFailureIsNotPermitted() throws {
        let denied = try #require(
            LiveCapture.activationError(
                status: PCAP_ERROR_PERM_DENIED, device: "lo", message: "socket: Operation not permitted"))
        #expect(denied.code == .notPermitted)
        #expect(
            denied.detail
                == "live capture on 'lo' is not permitted (You don't have permission to perform this capture on "
                + "that device: socket: Operation not permitted); it needs root or CAP_NET_RAW, the decrypted "
                + "capture still works")
        let other = LiveCapture.activationError(status: PCAP_ERROR_IFACE_NOT_UP, device: "eth9", message: "")
        #expect(other?.code == .unavailable)
        #expect(other?.detail.contains("(That device is not up)") == true)
        #expect(LiveCapture.activationError(status: 0, device: "lo", message: "") == nil)
        #expect(LiveCapture.activationError(status: PCAP_WARNING, device: "lo", message: "warning") == nil)
    }

    @Test func filterForPorts() {
        #expect(LiveCapture.filter(ports: [1, 2]) == "tcp and (port 1 or port 2)")
        #expect(LiveCapture.filter(ports: [8443]) == "tcp and (port 8443)")
        #expect(LiveCapture.filter(ports: []) == "tcp")
    }
}
