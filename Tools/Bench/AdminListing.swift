import Foundation
import HTTPExchange
import HTTPWire
import SquallNet

/// The reference server's view of its uploads, `GET /_squall/uploads`, and the check that an upload the
/// benchmark sent arrived intact.
struct AdminListing {
    /// One upload as the listing shows it (the fields the check needs; the listing has more).
    struct Entry: Decodable {
        var id: String
        /// Bytes durable and reportable.
        var offset: Int64
        var length: Int64?
        var complete: Bool
        var cancelled: Bool
        /// Lowercase hex SHA-256 of the complete data.
        var sha256: String?
    }

    /// The listing's path on the server.
    static let path = "/_squall/uploads"
    /// The largest listing read: far more than a few thousand uploads need.
    static let sizeLimit = 64 << 20

    /// The entries by upload id.
    let entries: [String: Entry]

    /// Fetches the listing from `target` over a fresh connection.
    init(from target: UploadTarget, timeout: Duration) throws {
        let socket = try TCPConnector.connect(to: target.address, timeout: timeout)
        let stream = PlainStream(socket: socket)
        defer { stream.close() }
        try socket.setNonBlocking(true)
        let head = RequestHead(
            method: .get, target: Self.path, fields: ["Host": target.authority, "Connection": "close"])
        let response = try HTTPClientStream(stream: stream).exchange(
            head, progressTimeout: timeout, bodyLimit: .refuseOver(Self.sizeLimit))
        guard response.head.status == 200 else { throw BenchError("\(Self.path) answered \(response.head.status)") }
        let body = response.body
        let list: [Entry]
        do {
            list = try JSONDecoder().decode([Entry].self, from: Data(body))
        } catch {
            throw BenchError("\(Self.path) is not the expected JSON array: \(error)")
        }
        entries = Dictionary(list.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Why the upload behind `outcome` is not intact, or nil when it is: a 200/201 final response that says
    /// complete, all `length` bytes sent, and a listing entry that is complete at `length` with the SHA-256 of the
    /// bytes sent.
    func problem(with outcome: CreationOutcome, length: Int64) -> String? {
        guard let final = outcome.final else { return "no final response" }
        guard final.status == 200 || final.status == 201 else { return "final response \(final.status)" }
        if let complete = final.fields["Upload-Complete"], complete != "?1" {
            return "final response says Upload-Complete: \(complete)"
        }
        guard outcome.sentBytes == length else { return "sent \(outcome.sentBytes) of \(length) bytes" }
        guard let id = outcome.uploadID else { return "no Location in any response" }
        guard let entry = entries[id] else { return "\(id) is not in \(Self.path)" }
        guard entry.complete, !entry.cancelled else { return "\(id) is listed incomplete or cancelled" }
        guard entry.offset == length, entry.length == length else {
            return "\(id) is listed at offset \(entry.offset), length \(entry.length ?? -1), not \(length)"
        }
        guard let sent = outcome.sha256 else { return nil }
        guard entry.sha256 == sent else { return "\(id) has SHA-256 \(entry.sha256 ?? "none"), sent \(sent)" }
        return nil
    }
}
