import Glibc
import SquallNet
import Synchronization
import TLSKit

/// `idle-load`: holds idle and slowloris connections against a listener, reopening each one it closes, for at most
/// `--seconds`, so that a script can measure what real traffic goes through meanwhile (`Tools/load-idle.sh`).
///
/// ```
/// squall-bench idle-load --to 127.0.0.1:P --ca-file DIR/ca.pem --idle 1000 --slow 300 --ramp 10 --seconds 300
///   # → idle-load ready connections=1300 seconds=…     every slot connected once
///   # → idle-load steady reopened=1300 seconds=…        as many reopened: the listener's timeouts are cutting them
///   # → idle-load idle=1000 slow=300 opened=… answered408=… answered503=… closed=… failed=… seconds=…  (at the end)
/// ```
/// An idle slot connects (TLS handshake included) and sends nothing; a slow one sends a request head that never ends,
/// one byte a second. When the listener answers (408, 503) or closes, the slot counts it and connects again. Each
/// slot is a thread of its own; slot i first connects i/N of `--ramp` seconds (default 0) in, so that the slots' timeouts,
/// and so their reconnections, are spread over that time instead of coming in one burst. SIGINT, SIGTERM or
/// `--seconds` (default 300) ends the run.
enum IdleLoadBench: BenchCommand {
    static let name = "idle-load"
    static let usage =
        "--to ADDR [--ca-file FILE] [--idle N] [--slow N] [--ramp SECONDS] [--seconds N] [--server-name NAME]"
    static let summary =
        "holds N idle and N one-byte-a-second connections, reopening each one the listener ends; prints ready, "
        + "steady, then the counts at SIGINT, SIGTERM or --seconds"

    static func run(_ options: BenchOptions) throws {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        let idle = try options.count("idle") ?? 1000
        let slow = try options.count("slow") ?? 300
        let seconds = try options.count("seconds") ?? 300
        let ramp = try options.count("ramp") ?? 0
        guard idle + slow <= 4000, seconds <= 3600, ramp < seconds else {
            throw BenchError("at most 4000 connections (--idle plus --slow) and 3600 --seconds, more than --ramp")
        }
        let target = IdleLoadTarget(
            address: try options.address("to"), context: try ProxyClientConnection.context(options),
            serverName: options.string("server-name", default: TLSEndpoints.defaultHost))
        let counts = IdleLoadCounts()
        let clock = ContinuousClock()
        let started = clock.now
        let end = started + .seconds(seconds)
        let total = idle + slow
        let slots = (0..<total).map { index in
            let delay = Duration.seconds(ramp) * (Double(index) / Double(total))
            // Exactly `slow` slow slots, spread evenly among the idle ones (and so over the ramp).
            let isSlow = (index + 1) * slow / total > index * slow / total
            return ConnectionThread(name: "idle-load-\(index)", stackSize: 128 * 1024) {
                IdleLoadSlot(target: target, slow: isSlow, counts: counts).run(after: started + delay)
            }
        }
        var said = (ready: false, steady: false)
        while clock.now < end {
            var pause = timespec(tv_sec: 0, tv_nsec: 100_000_000)
            if sigtimedwait(&signals, nil, &pause) > 0 { break }
            let elapsed = fixed((clock.now - started).seconds, 2)
            if !said.ready, counts.connectedOnce.load(ordering: .relaxed) == slots.count {
                said.ready = true
                BenchMain.emit("\(name) ready connections=\(slots.count) seconds=\(elapsed)")
            }
            if said.ready, !said.steady, counts.reopened.load(ordering: .relaxed) >= slots.count {
                said.steady = true
                BenchMain.emit("\(name) steady reopened=\(slots.count) seconds=\(elapsed)")
            }
        }
        counts.stopping.store(true, ordering: .relaxed)
        for slot in slots { slot.join() }
        BenchMain.emit(
            "\(name) idle=\(idle) slow=\(slow) \(counts.summary) seconds=\(fixed((clock.now - started).seconds, 2))")
    }
}

/// Where the slots connect.
private struct IdleLoadTarget: Sendable {
    var address: SocketAddress
    var context: TLSContext?
    var serverName: String
}

/// What the slots did, shared.
private final class IdleLoadCounts: Sendable {
    let stopping = Atomic<Bool>(false)
    /// Slots that connected at least once.
    let connectedOnce = Atomic<Int>(0)
    /// Connections opened after a slot's first.
    let reopened = Atomic<Int>(0)
    let opened = Atomic<Int>(0)
    let answered408 = Atomic<Int>(0)
    let answered503 = Atomic<Int>(0)
    /// Ended by the listener without an answer (a close or a reset).
    let closed = Atomic<Int>(0)
    /// Connections or TLS handshakes that failed.
    let failed = Atomic<Int>(0)

    var summary: String {
        "opened=\(opened.load(ordering: .relaxed)) answered408=\(answered408.load(ordering: .relaxed))"
            + " answered503=\(answered503.load(ordering: .relaxed)) closed=\(closed.load(ordering: .relaxed))"
            + " failed=\(failed.load(ordering: .relaxed))"
    }
}

/// One slot: connects, idles or trickles until the listener ends the connection, counts how, and connects again.
private struct IdleLoadSlot {
    let target: IdleLoadTarget
    let slow: Bool
    let counts: IdleLoadCounts

    /// A request head that never ends: the slow slots send it one byte a second.
    static let endlessHead = Array("GET /slow HTTP/1.1\r\nHost: localhost\r\nX-Slow: ".utf8)

    func run(after start: ContinuousClock.Instant) {
        while ContinuousClock.now < start, !counts.stopping.load(ordering: .relaxed) {
            var pause = timespec(tv_sec: 0, tv_nsec: 100_000_000)
            nanosleep(&pause, nil)
        }
        var first = true
        while !counts.stopping.load(ordering: .relaxed) {
            guard
                let connection = try? ProxyClientConnection(
                    to: target.address, context: target.context, serverName: target.serverName),
                (try? Socket.setNonBlocking(connection.stream.fileDescriptor, true)) != nil
            else {
                counts.failed.add(1, ordering: .relaxed)
                var pause = timespec(tv_sec: 0, tv_nsec: 100_000_000)
                nanosleep(&pause, nil)
                continue
            }
            counts.opened.add(1, ordering: .relaxed)
            if first {
                counts.connectedOnce.add(1, ordering: .relaxed)
            } else {
                counts.reopened.add(1, ordering: .relaxed)
            }
            first = false
            hold(connection.stream)
        }
    }

    /// Waits (sending a byte a second when slow) until the listener answers or closes, or the run stops.
    private func hold(_ stream: any ByteStream) {
        var sent = 0
        var buffer = [UInt8](repeating: 0, count: 512)
        while !counts.stopping.load(ordering: .relaxed) {
            if slow {
                let byte = sent < Self.endlessHead.count ? Self.endlessHead[sent] : UInt8(ascii: "a")
                guard (try? stream.writeAll([byte], deadline: .now + .seconds(1))) != nil else {
                    counts.closed.add(1, ordering: .relaxed)
                    return
                }
                sent += 1
            }
            let read: Int
            do {
                read = try buffer.withUnsafeMutableBytes { try stream.readSome(into: $0, deadline: .now + .seconds(1)) }
            } catch let error as NetError where error.code == .timeout {
                continue
            } catch {
                counts.closed.add(1, ordering: .relaxed)
                return
            }
            let text = String(decoding: buffer[..<read], as: UTF8.self)
            if text.hasPrefix("HTTP/1.1 408") {
                counts.answered408.add(1, ordering: .relaxed)
            } else if text.hasPrefix("HTTP/1.1 503") {
                counts.answered503.add(1, ordering: .relaxed)
            } else {
                counts.closed.add(1, ordering: .relaxed)
            }
            return
        }
    }
}
