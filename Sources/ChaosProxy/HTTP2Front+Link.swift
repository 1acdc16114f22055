import HTTPExchange
import HTTPWire
import SquallNet

extension HTTP2Front {
    /// One stream and its exchange (a class: the loop changes it in place, never through a copy of its queue).
    final class Link {
        /// The front's end of the stream's pair.
        let pair: MemoryStream
        let method: HTTPMethod
        let chunked: Bool
        /// HTTP/1.1 bytes to write into the pair, each with how many of them are the client's content (consumed from
        /// its windows once written).
        var outgoing: [(bytes: [UInt8], content: Int)] = []
        var written = 0
        var parser = HTTP1Parser(role: .client)
        var finalSent = false
        var responseEnded = false
        var requestEnded = false
        /// The stream's connection as other threads see it (the code of a `reset-stream` its flow fired, the signals
        /// of its HTTP/2 faults).
        let handle: ConnectionHandle
        /// Content written into the pair and not yet consumed from the client's windows (held by a window stall).
        var unconsumed = 0
        /// Until when the stream's windows stay shut (`window-stall`); nil: not stalled.
        var stalledUntil: ContinuousClock.Instant?

        init(pair: MemoryStream, method: HTTPMethod, chunked: Bool, handle: ConnectionHandle) {
            self.pair = pair
            self.method = method
            self.chunked = chunked
            self.handle = handle
        }

        /// Drops the writes waiting for the pair (its other end is gone), the one begun included; returns the client's
        /// content in them (it goes back to the windows, the connection's above all, which the other streams share).
        func dropOutgoing() -> Int {
            defer {
                outgoing.removeAll()
                written = 0
            }
            return outgoing.reduce(0) { $0 + $1.content }
        }

        /// Queues `bytes` for the pair, `content` of them the client's. A burst of DATA frames comes as one event
        /// and goes into the pair uncopied; a small one is joined to a small write still waiting, so that the flow
        /// and the upstream get few large pieces rather than many small ones.
        func queue(_ bytes: [UInt8], content: Int) {
            if let last = outgoing.indices.last, last > 0 || written == 0,
                outgoing[last].bytes.count < HTTP2Front.joinLimit
            {
                outgoing[last].bytes.append(contentsOf: bytes)
                outgoing[last].content += content
            } else {
                outgoing.append((bytes, content))
            }
        }
    }
}
