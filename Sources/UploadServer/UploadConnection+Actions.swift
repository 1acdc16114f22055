import HTTPWire
import ResumableUpload
import UploadStore

/// What is left to do after the store-touching actions ran under an upload's lock: responses to send (outside
/// the lock, so a slow client never holds it) and whether to close.
struct ActionOutcome {
    var interims: [ResponseHead] = []
    var response: UploadResponse?
    var close = false
}

extension UploadConnection {
    /// Executes `actions` of the machine in `state` (called under the slot's lock): writes the first bytes of
    /// `chunk`, syncs before any offset is reported, finalizes, aborts an earlier request, discards.
    func apply(
        _ actions: [UploadAction], to state: inout UploadSlot.State, id: String, chunk: ArraySlice<UInt8>? = nil
    ) throws -> ActionOutcome {
        var outcome = ActionOutcome()
        for action in actions {
            switch action {
            case .sendInterim(let head):
                outcome.interims.append(head)
            case .write(let count):
                guard let chunk, let writer = state.writer else { continue }
                try chunk.prefix(Int(count)).withUnsafeBytes { try writer.write($0) }
            case .persist:
                _ = try state.writer?.sync()
            case .rewind(let offset):
                try state.writer?.rewind(to: offset)
            case .finalize:
                try finalize(&state, id: id)
            case .send(let response), .reject(_, let response):
                outcome.response = response
            case .abortActiveRequest:
                try abortActiveRequest(&state, id: id)
            case .closeConnection:
                outcome.close = true
            case .discard:
                state.writer = nil
                _ = try? server.store.cancel(id, for: principal)
            }
        }
        if let response = outcome.response, let record = server.store.record(id), record.complete,
            record.finalResponse == nil
        {
            _ = try server.store.setFinalResponse(id, Self.stored(response), serverResourceId: id)
        }
        return outcome
    }

    /// Ends the request streaming into the upload (its thread sees a new generation), keeping its bytes: the store
    /// syncs what the writer wrote while its handle still lives (a handle dropped first ends it without a sync, and
    /// the machine's offset would then be ahead of the durable one).
    private func abortActiveRequest(_ state: inout UploadSlot.State, id: String) throws {
        state.generation += 1
        state.streaming?.interrupt()
        state.streaming = nil
        if let writer = state.writer {
            try withExtendedLifetime(writer) { _ = try server.store.abortWriter(id) }
            state.writer = nil
        }
    }

    private func finalize(_ state: inout UploadSlot.State, id: String) throws {
        guard let writer = state.writer else { return }
        state.writer = nil
        _ = try writer.finish(complete: true)
    }

    /// Ends the current request's writer (syncing it) when the machine no longer receives.
    func endRequest(_ state: inout UploadSlot.State) {
        guard !state.machine.isReceiving else { return }
        if let writer = state.writer { _ = try? writer.finish(complete: false) }
        state.writer = nil
        state.streaming = nil
        state.contentHashes = nil
    }

    /// A response as the store keeps it for idempotent replay.
    static func stored(_ response: UploadResponse) -> StoredResponse {
        StoredResponse(
            status: response.head.status,
            headers: response.head.fields.map { StoredResponse.Header(name: $0.name, value: $0.value) })
    }

    /// A stored response as a head to send again.
    static func head(of stored: StoredResponse) -> ResponseHead {
        let reasons = [200: "OK", 201: "Created", 204: "No Content"]
        var head = ResponseHead(status: stored.status, reason: reasons[stored.status] ?? "")
        for header in stored.headers { head.fields.append(name: header.name, value: header.value) }
        return head
    }
}
