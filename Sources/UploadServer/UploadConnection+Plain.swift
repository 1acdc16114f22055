import HTTPExchange
import HTTPWire
import ResumableUpload
import UploadStore

extension UploadConnection {
    /// A request that is not resumable (no or an unknown interop version, resumability off, no completion
    /// field): POST and PUT are plain uploads, stored whole and answered 201 with `x-server-resource-id` (never a
    /// 104, never a 4xx for the version); anything else is 404.
    func servePlain(_ head: RequestHead) throws {
        guard head.method == .post || head.method == .put else {
            closeUnlessBodyless(head)
            return try send(
                UploadResponse(head: ResponseHead(status: 404, reason: "Not Found", fields: ["Content-Length": "0"])))
        }
        let record = try server.store.create(UploadCreation(principal: principal)).record
        currentUpload = record.id
        let writer = try server.store.beginAppend(record.id, for: principal, at: 0)
        try continueIfExpected()
        while true {
            let part: HTTPServerStream.BodyPart
            do {
                part = try nextBodyPart()
            } catch {
                let kept = (try? writer.finish(complete: false))?.durableOffset ?? bodyBytes
                logInterrupted(record.id, offset: kept, reason: interruptionReason(error))
                if error.code == .malformed {
                    sendStatusAndClose(400, "Bad Request", detail: "malformed request body: \(error)")
                } else {
                    closing = true
                }
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
}
