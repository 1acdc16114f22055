import HTTPWire
import SquallNet
import TLSKit

/// The client half of the smoke check: one creation request over TLS, body streamed from `UploadContent`,
/// every response head collected until the final one.
struct SmokeClient {
    /// What the client saw.
    struct Outcome: Sendable {
        var session: TLSSessionInfo?
        var interim: [ResponseHead] = []
        var final: ResponseHead?
        var sentBytes = 0
        var sentSHA256 = ""
    }

    var address: SocketAddress
    var serverName: String
    var context: TLSContext
    var content: UploadContent
    var interopVersion: Int
    var timeout: Duration

    func upload() throws -> Outcome {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        let stream = try TLSStream.connect(to: address, context: context, serverName: serverName, timeout: timeout)
        defer { stream.close() }
        var outcome = Outcome(session: stream.session)

        let head = RequestHead(
            method: .post, target: "/upload",
            fields: [
                "Host": "\(serverName):\(address.port)",
                "Upload-Draft-Interop-Version": String(interopVersion),
                "Upload-Complete": "?1",
                "Upload-Length": String(content.length),
                "Content-Length": String(content.length),
            ])
        try stream.writeAll(try HTTP1Serializer.serialize(head), deadline: deadline)
        let digest = SHA256Digest()
        try content.forEachChunk { chunk in
            chunk.withUnsafeBytes { digest.update($0) }
            try stream.writeAll(chunk, deadline: deadline)
            outcome.sentBytes += chunk.count
        }
        outcome.sentSHA256 = SHA256Digest.hexString(digest.finalize())

        var parser = HTTP1Parser(role: .client)
        parser.expectResponse(to: .post)
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while outcome.final == nil {
            let count = try buffer.withUnsafeMutableBytes { try stream.readSome(into: $0, deadline: deadline) }
            let events = count == 0 ? try parser.finish() : try parser.feed(buffer[..<count])
            for case .responseHead(let response) in events {
                if response.isInformational {
                    outcome.interim.append(response)
                } else {
                    outcome.final = response
                }
            }
            if count == 0 { break }
        }
        return outcome
    }
}
