import HTTPExchange
import HTTPWire
import ResumableUpload

extension UploadConnection {
    /// Starts a request: notes the upload its target names, and logs its method, target, interop version and that
    /// upload's offset before the request.
    func logRequest(_ head: RequestHead) {
        currentUpload = Self.uploadID(in: head.target, prefix: uploadProtocol.resourcePathPrefix)
        bodyBytes = 0
        guard let log = server.log else { return }
        let interop = head.fields[InteropVersion.fieldName].flatMap { Int64($0) }
        log.record(
            "request",
            [
                "conn": .int(Int64(id)), "method": .string(head.method.rawValue), "target": .string(head.target),
                "interop": interop.map { .int($0) }, "upload": currentUpload.map { .string($0) },
                "offset": currentUpload.flatMap(server.progress(of:)).map { .int($0.offset) },
            ])
    }

    /// Logs a final response with the upload's offset and completeness after the request and the body bytes it
    /// read, then forgets the request; of the interim responses, only a 104 with `Location` (a creation's).
    func logResponse(_ head: ResponseHead) {
        if head.isInformational {
            guard head.status == 104, head.fields["Location"] != nil else { return }
            server.log?.record(
                "response",
                [
                    "conn": .int(Int64(id)), "status": .int(Int64(head.status)), "interim": .bool(true),
                    "upload": currentUpload.map { .string($0) },
                ])
            return
        }
        if let log = server.log {
            let progress = currentUpload.flatMap(server.progress(of:))
            log.record(
                "response",
                [
                    "conn": .int(Int64(id)), "status": .int(Int64(head.status)),
                    "upload": currentUpload.map { .string($0) }, "offset": progress.map { .int($0.offset) },
                    "complete": progress.map { .bool($0.complete) }, "bytes": .int(bodyBytes),
                ])
        }
        currentUpload = nil
        bodyBytes = 0
    }

    /// Logs a body cut short: the bytes of `upload` kept, and why.
    func logInterrupted(_ upload: String, offset: Int64, reason: String) {
        server.log?.record(
            "interrupted",
            [
                "conn": .int(Int64(id)), "upload": .string(upload), "offset": .int(offset),
                "reason": .string(reason),
            ])
    }

    /// Why reading a body failed, for the log: `eof`, `reset`, `timeout`, `malformed`, `server stopping`, or the
    /// error's description.
    func interruptionReason(_ error: any Error) -> String {
        switch error {
        case _ where server.isStopping: "server stopping"
        case let error as HTTPExchangeError: error.reason
        default: "\(error)"
        }
    }

    /// The next part of the request's body, waiting at most `idleTimeout` for bytes; its bytes are counted.
    func nextBodyPart() throws(HTTPExchangeError) -> HTTPServerStream.BodyPart {
        let part = try reader.nextBodyPart(timeout: configuration.limits.idleTimeout)
        if case .data(let bytes) = part { bodyBytes += Int64(bytes.count) }
        return part
    }

    /// The upload id in a target `<prefix><id>` (query ignored), or nil.
    static func uploadID(in target: String, prefix: String) -> String? {
        let path = target.prefix { $0 != "?" }
        guard path.hasPrefix(prefix) else { return nil }
        let id = path.dropFirst(prefix.count)
        return id.isEmpty || id.contains("/") ? nil : String(id)
    }
}
