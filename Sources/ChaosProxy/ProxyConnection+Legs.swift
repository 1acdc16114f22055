import ProxyFlow
import ProxyTranscript
import SquallNet

/// The sockets are the driver's legs: it writes the lanes to them, and its capture marks and transcript events go to
/// the capture and the proxy's transcript.
extension ProxyConnection: FlowLegs {
    func write(_ bytes: ArraySlice<UInt8>, to side: FlowSide) -> FlowWrite {
        guard let stream = stream(side) else { return .blocked }
        // An HTTP/2 stream's request reaches the upstream only if its front did not refuse it first.
        if side == .upstream, handle.frontWake != nil, !claimedForwarding {
            guard handle.claimForwarding() else { return .failed }
            claimedForwarding = true
        }
        let outcome: IOOutcome
        do {
            if let memory = stream as? MemoryStream {
                // An HTTP/2 stream's end: the bytes are handed over uncopied.
                outcome = try memory.send(bytes)
            } else {
                outcome = try bytes.withUnsafeBytes { try stream.write($0) }
            }
        } catch {
            return .failed
        }
        switch outcome {
        case .done(let count):
            capture?.sent(bytes.prefix(count), to: side)
            handle.account(count, to: side)
            return .done(count)
        case .wouldBlock(let interest):
            writeWait[side] = interest
            return .blocked
        case .endOfStream:
            return .blocked
        }
    }

    func shutDown(_ side: FlowSide) -> FlowWrite {
        guard let stream = stream(side) else { return .blocked }
        // A TLS close_notify that would block is tried again when the socket is writable.
        switch try? stream.shutdownWrite() {
        case .wouldBlock(let interest)?:
            writeWait[side] = interest
            return .blocked
        case nil:
            return .failed
        default:
            return .done(0)
        }
    }

    func mark(_ mark: CaptureMark) {
        capture?.mark(mark)
    }

    func record(_ events: [TranscriptEvent]) {
        shared.transcript.append(events)
    }
}
