import HTTPWire
import SquallNet

/// What a client saw of one HTTP/1.1 exchange through the proxy.
struct WireOutcome {
    var interims: [ResponseHead] = []
    var final: ResponseHead?
    var body: [UInt8] = []
    /// Why reading stopped before a complete response: an error, or end of stream.
    var failure: String?
    /// Whether writing the request failed part way.
    var writeFailed = false
}

/// A blocking test client: sends a request head and its body in the given segments (each its own write),
/// then reads heads and the body of the final response.
enum WireExchange {
    static let patience: Duration = .seconds(20)

    static func send(
        _ head: RequestHead, body: [UInt8] = [], segments: [Int]? = nil, over stream: any ByteStream,
        readResponse: Bool = true
    ) -> WireOutcome {
        var outcome = WireOutcome()
        let deadline = ContinuousClock.now + patience
        do {
            try stream.writeAll(try HTTP1Serializer.serialize(head), deadline: deadline)
            var position = 0
            for size in segments ?? [body.count] where position < body.count {
                let end = min(body.count, position + size)
                try stream.writeAll(Array(body[position..<end]), deadline: deadline)
                position = end
            }
            if position < body.count { try stream.writeAll(Array(body[position...]), deadline: deadline) }
        } catch {
            outcome.writeFailed = true
        }
        guard readResponse else { return outcome }
        read(head.method, from: stream, into: &outcome, deadline: deadline)
        return outcome
    }

    /// Reads until the final response is complete, the stream ends, or an error.
    static func read(
        _ method: HTTPMethod, from stream: any ByteStream, into outcome: inout WireOutcome,
        deadline: ContinuousClock.Instant
    ) {
        var parser = HTTP1Parser(role: .client)
        parser.expectResponse(to: method)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 8)
        defer { buffer.deallocate() }
        do {
            while true {
                let count = try stream.readSome(into: buffer, deadline: deadline)
                guard count > 0 || outcome.final != nil else {
                    outcome.failure = "end of stream"
                    return
                }
                let events = count == 0 ? try parser.finish() : try parser.feed(Array(buffer[0..<count]))
                for event in events {
                    switch event {
                    case .responseHead(let head) where head.isInformational: outcome.interims.append(head)
                    case .responseHead(let head): outcome.final = head
                    case .body(let bytes): outcome.body += bytes
                    case .end: return
                    default: break
                    }
                }
                if count == 0 {
                    outcome.failure = "end of stream"
                    return
                }
            }
        } catch {
            outcome.failure = "\(error)"
        }
    }
}
