import Glibc
import SquallNet
import TLSKit
import TestSupport
import Testing

/// With read-ahead on, OpenSSL pulls every record waiting on the socket into its own buffer; poll no longer
/// sees them, so `bufferedReadableCount` must, or a relay would wait forever for bytes it already has.
struct ReadAheadTests {
    init() {
        ProcessSetup.ignoreBrokenPipe()
    }

    /// Three 10-byte writes are three TLS 1.3 records of 32 bytes on the wire (5 header, 10 data, 1 type, 16 tag).
    static let recordCount = 3
    static let wireBytes = 3 * 32

    @Test func recordsPulledInByReadAheadCountAsReadable() throws {
        let directory = try TLSFixtures.TemporaryDirectory()
        let authority = try TLSFixtures.makeCertificateAuthority(in: directory)
        let server = try TLSTestServer(context: TLSFixtures.serverContext(authority: authority)) { stream in
            // Only now, with the handshake over, may the client send: records sent earlier could be pulled in
            // with the client's Finished by the handshake's own read-ahead.
            try ByteStreamDriver.writeAll(stream, Array("ready".utf8))
            try ByteStreamDriver.writeAll(stream, Array(try ReadAheadTests.observe(stream).utf8))
            try ByteStreamDriver.shutdownWrite(stream)
        }
        let client = try TLSFixtures.clientContext(authority: authority) { $0.maximumVersion = .tls13 }
        let stream = try TLSStream.connect(to: server.address, context: client, serverName: "localhost")
        _ = try ByteStreamDriver.readUntil(stream, delimiter: Array("ready".utf8))
        for index in 0..<Self.recordCount {
            try ByteStreamDriver.writeAll(stream, Array("record \(index)!!".utf8.prefix(10)))
        }
        let summary = String(decoding: try ByteStreamDriver.readToEnd(stream), as: UTF8.self)
        #expect(summary == "read 10, buffered yes, socket 0; read 10; read 10; then wouldBlock, buffered 0")
        #expect(server.nextConnection()?.error == nil)
    }

    /// Waits until all three records sit in the socket, then reads them one `read` at a time, noting what
    /// `bufferedReadableCount` and the socket say in between.
    static func observe(_ stream: TLSStream) throws -> String {
        let deadline = ContinuousClock.now.advanced(by: .seconds(10))
        while queuedBytes(stream.socket.fd) < wireBytes {
            guard ContinuousClock.now < deadline else { return "the records never arrived" }
            var entry = pollfd(fd: stream.socket.fd, events: Int16(POLLIN), revents: 0)
            _ = poll(&entry, 1, 10)
        }
        try stream.socket.setNonBlocking(true)
        var buffer = [UInt8](repeating: 0, count: 100)
        func read() throws -> IOOutcome { try buffer.withUnsafeMutableBytes { try stream.read(into: $0) } }
        let first = try read()
        let buffered = stream.bufferedReadableCount > 0 ? "yes" : "no"
        let socket = queuedBytes(stream.socket.fd)
        let second = try read()
        let third = try read()
        let fourth = try read()
        let after = stream.bufferedReadableCount
        try stream.socket.setNonBlocking(false)
        return "\(describe(first)), buffered \(buffered), socket \(socket); \(describe(second)); \(describe(third)); "
            + "then \(describe(fourth)), buffered \(after)"
    }

    static func describe(_ outcome: IOOutcome) -> String {
        switch outcome {
        case .done(let count): "read \(count)"
        case .wouldBlock: "wouldBlock"
        case .endOfStream: "endOfStream"
        }
    }

    /// Bytes waiting in the socket's receive queue (FIONREAD).
    static func queuedBytes(_ fd: Int32) -> Int {
        var count: Int32 = 0
        _ = ioctl(fd, UInt(FIONREAD), &count)
        return Int(count)
    }
}
