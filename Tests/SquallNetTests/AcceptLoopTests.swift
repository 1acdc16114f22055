import Dispatch
import SquallNet
import TestSupport
import Testing

/// How long any step of these tests may wait.
private let patience: Duration = .seconds(20)

struct AcceptLoopTests {
    /// 100 clients at once: every handler runs at the same time on its own thread, each echoes its client's
    /// byte, and after `stop()` no thread is left.
    @Test func servesOneHundredConcurrentConnections() throws {
        let started = DispatchSemaphore(value: 0)
        let loop = try LoopbackServer.start { socket in
            started.signal()
            let stream = PlainStream(socket: socket)
            var byte = [UInt8](repeating: 0, count: 1)
            guard
                let count = try? byte.withUnsafeMutableBytes({
                    try stream.readSome(into: $0, deadline: .now + patience)
                }),
                count == 1
            else { return }
            try? stream.writeAll(byte, deadline: .now + patience)
            stream.close()
        }
        var clients: [PlainStream] = []
        for _ in 0..<100 { clients.append(PlainStream(socket: try TCPConnector.connect(to: loop.address))) }
        for _ in 0..<100 { #expect(started.wait(timeout: .now() + .seconds(20)) == .success) }
        #expect(loop.activeConnections == 100)

        for (index, client) in clients.enumerated() {
            try client.writeAll([UInt8(index)], deadline: .now + patience)
        }
        for (index, client) in clients.enumerated() {
            #expect(try client.readToEnd(limit: 10, deadline: .now + patience) == [UInt8(index)])
        }
        loop.stop()
        #expect(loop.waitUntilIdle(timeout: patience))
        #expect(loop.activeConnections == 0)
        #expect(loop.acceptedConnections == 100)
        #expect(loop.peakConnections == 100)
    }

    /// At the limit (without a shedder) the loop stops accepting; the next connection is served once a handler
    /// returns.
    @Test func neverRunsMoreThanTheMaximum() throws {
        let started = Mailbox<Int>()
        let loop = try LoopbackServer.start(configuration: AcceptLoopConfiguration(maximumConnections: 2)) { socket in
            let stream = PlainStream(socket: socket)
            let request = (try? stream.readToEnd(limit: 10, deadline: .now + patience)) ?? []
            started.put(request.count)
        }
        defer { loop.stop() }
        let clients = try (0..<3).map { _ in PlainStream(socket: try TCPConnector.connect(to: loop.address)) }

        // Each handler posts when its client ends the stream; the third can only start after one of them.
        for (index, client) in clients.enumerated() {
            try client.writeAll([UInt8](repeating: 1, count: index + 1), deadline: .now + patience)
        }
        try clients[0].shutdownWrite(deadline: .now + patience)
        #expect(started.take() == 1)
        try clients[1].shutdownWrite(deadline: .now + patience)
        #expect(started.take() == 2)
        try clients[2].shutdownWrite(deadline: .now + patience)
        #expect(started.take() == 3)

        #expect(loop.waitUntilIdle(timeout: patience))
        #expect(loop.acceptedConnections == 3)
        #expect(loop.peakConnections == 2)
    }

    /// With a shedder, the loop goes on accepting at the limit and hands what comes over it to the shedder; a slot
    /// that frees takes the next connection again.
    @Test func atTheLimitConnectionsAreShedNotQueued() throws {
        let served = Mailbox<Int>()
        let shed = Mailbox<Int>()
        let release = Mailbox<Bool>()
        let configuration = AcceptLoopConfiguration(
            maximumConnections: 1,
            shed: { socket in
                let stream = PlainStream(socket: socket)
                try? stream.writeAll(Array("full".utf8), deadline: .now + patience)
                stream.close()
                shed.put(1)
            })
        let loop = try LoopbackServer.start(configuration: configuration) { socket in
            served.put(1)
            _ = release.take(timeout: patience)
            socket.close()
        }
        defer { loop.stop() }
        let first = PlainStream(socket: try TCPConnector.connect(to: loop.address))
        #expect(served.take(timeout: patience) == 1)
        let second = PlainStream(socket: try TCPConnector.connect(to: loop.address))
        #expect(shed.take(timeout: patience) == 1)
        #expect(try second.readToEnd(limit: 10, deadline: .now + patience) == Array("full".utf8))
        #expect(loop.shedConnections == 1)
        release.put(true)
        #expect(try first.readToEnd(limit: 10, deadline: .now + patience) == [])
        #expect(loop.waitUntilIdle(timeout: patience))
        let third = PlainStream(socket: try TCPConnector.connect(to: loop.address))
        #expect(served.take(timeout: patience) == 1)
        release.put(true)
        #expect(try third.readToEnd(limit: 10, deadline: .now + patience) == [])
        #expect(loop.acceptedConnections == 2)
    }

    @Test func stopClosesTheListener() throws {
        let loop = try LoopbackServer.start { _ in }
        let address = loop.address
        loop.stop()
        loop.stop()
        #expect {
            try TCPConnector.connect(to: address, timeout: .seconds(5))
        } throws: { error in
            (error as? NetError)?.code == .connectionRefused
        }
        #expect(loop.acceptedConnections == 0)
    }

    @Test func listensOnIPv6() throws {
        let loop = try LoopbackServer.echo(host: "::1")
        defer { loop.stop() }
        let client = PlainStream(socket: try TCPConnector.connect(to: loop.address))
        try client.writeAll(Array("six".utf8), deadline: .now + patience)
        try client.shutdownWrite(deadline: .now + patience)
        #expect(try client.readToEnd(limit: 10, deadline: .now + patience) == Array("six".utf8))
        #expect(loop.address.description.hasPrefix("[::1]:"))
    }

    @Test func aConnectionThreadCanBeJoined() {
        let done = Mailbox<Int>()
        let thread = ConnectionThread(name: "test-join", stackSize: 64 << 10) { done.put(42) }
        thread.join()
        #expect(thread.join(timeout: .milliseconds(1)))
        #expect(done.take(timeout: .zero) == 42)
    }
}
