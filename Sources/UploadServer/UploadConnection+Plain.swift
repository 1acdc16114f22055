import HTTPWire
import ResumableUpload
import UploadStore

extension UploadConnection {
    /// The read-only admin listing.
    static let adminPath = "/_squall/uploads"

    /// A request that is not resumable (no or an unknown interop version, resumability off, no completion
    /// field): `GET /_squall/uploads` lists the store; POST and PUT are plain uploads, stored whole and answered
    /// 201 with `x-server-resource-id` (never a 104, never a 4xx for the version); anything else is 404.
    func servePlain(_ head: RequestHead) throws {
        let path = String(head.target.prefix { $0 != "?" })
        if head.method == .get && path == Self.adminPath {
            closeUnlessBodyless(head)
            return try sendAdminListing()
        }
        guard head.method == .post || head.method == .put else {
            closeUnlessBodyless(head)
            return try send(
                UploadResponse(head: ResponseHead(status: 404, reason: "Not Found", fields: ["Content-Length": "0"])))
        }
        let record = try server.store.create(UploadCreation(principal: principal)).record
        let writer = try server.store.beginAppend(record.id, for: principal, at: 0)
        try continueIfExpected()
        while true {
            let part: RequestReader.BodyPart
            do {
                part = try reader.nextBodyPart(timeout: configuration.idleTimeout)
            } catch {
                closing = true
                _ = try? writer.finish(complete: false)
                return
            }
            switch part {
            case .data(let bytes):
                try bytes.withUnsafeBytes { try writer.write($0) }
            case .end:
                _ = try writer.finish(complete: true)
                let created = ResponseHead(
                    status: 201, reason: "Created",
                    fields: ["x-server-resource-id": record.id, "Content-Length": "0"])
                return try send(UploadResponse(head: created))
            }
        }
    }

    private func sendAdminListing() throws {
        let body = try UploadAdminListing.json(server.store.list())
        let head = ResponseHead(
            status: 200, reason: "OK",
            fields: [
                "Content-Type": "application/json", "Content-Length": String(body.count),
                "Cache-Control": "no-store",
            ])
        try send(UploadResponse(head: head, body: body))
    }
}
