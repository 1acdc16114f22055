import HTTPExchange
import HTTPWire
import ResumableUpload
import UploadStore

extension UploadConnection {
    /// A creation (§3 of the draft): checks the declared lengths, announces the upload (the 104 with its `Location`),
    /// creates it in the store, then streams the body in (see `announceAndCreate`). A creation with an
    /// `Idempotency-Key` is created in the store first, since an earlier creation with the same key is replayed
    /// instead (no new upload, no 104).
    func create(_ request: CreationRequest, _ head: RequestHead) throws {
        let id = UploadID.generate()
        let location = baseURL(head) + uploadProtocol.resourcePathPrefix + id
        let started: (machine: UploadResourceStateMachine, actions: [UploadAction])
        do {
            started = try UploadResourceStateMachine.create(
                id: id, location: location, request: request, configuration: uploadProtocol, now: Self.now())
        } catch {
            closeUnlessBodyless(head)
            return try send(
                UploadResponse.rejection(error, version: request.version, limits: uploadProtocol.limits))
        }
        let creation = UploadCreation(
            id: id, principal: principal, idempotencyKey: request.idempotencyKey,
            interopVersion: request.version.rawValue, length: request.declaredLength)
        var interims = started.actions.compactMap(Self.interim)
        if request.idempotencyKey != nil, case .existing(let record) = try server.store.create(creation) {
            currentUpload = record.id
            return try replay(record, request.version, head)
        }
        currentUpload = id
        let slot = UploadSlot(id: id, principal: principal, machine: started.machine)
        let generation = try announceAndCreate(
            slot, creation: request.idempotencyKey == nil ? creation : nil, interims: &interims)
        try streamBody(into: slot, generation: generation, after: ActionOutcome(interims: interims))
    }

    /// Lists the upload and starts its writer, under the slot's lock from before the upload is listed until the store
    /// has it durably; with `creation` (not yet in the store), the store makes its files first, the announcing 104
    /// goes out, and only then are the files synced (four fsyncs: about a millisecond, more on a loaded disk), so
    /// that the client can resume as early as the server can answer for the upload. A request for the upload
    /// meanwhile (a HEAD after a cut right after the 104) waits on the slot's lock. A kill -9 after the 104 keeps the
    /// upload (the kernel has its files); a machine crash before the sync may lose it: a HEAD then gets 404, and the
    /// client starts over, as the draft allows. A 104 that could not be written stays in `interims` (sending it
    /// again fails the same way, and the body is then drained as after any failed 104).
    private func announceAndCreate(
        _ slot: UploadSlot, creation: UploadCreation?, interims: inout [ResponseHead]
    ) throws -> UInt64 {
        try slot.state.withLock { state throws -> UInt64 in
            server.registry.add(slot)
            do {
                if let creation {
                    _ = try server.store.create(creation, durable: false)
                    if let announcement = interims.first, (try? send(announcement)) != nil { interims.removeFirst() }
                    try server.store.makeDurable(slot.id)
                }
                state.writer = try server.store.beginAppend(slot.id, for: principal, at: 0)
            } catch {
                server.registry.remove([slot.id])
                throw error
            }
            state.streaming = channel
            state.generation += 1
            return state.generation
        }
    }

    /// An append (PATCH): the machine checks the offset and limits; on success the body streams in.
    func append(_ request: AppendRequest, to id: String, _ head: RequestHead) throws {
        guard let slot = server.slot(id, for: principal) else {
            closeUnlessBodyless(head)
            return try sendUnknownUpload(id, request.version)
        }
        slot.waitForClosedStream(besides: channel)
        let now = Self.now()
        let (outcome, generation) = try slot.state.withLock { state throws -> (ActionOutcome, UInt64?) in
            let outcome = try apply(state.machine.startAppend(request, now: now), to: &state, id: id)
            guard outcome.response == nil else { return (outcome, nil) }
            do {
                state.writer = try server.store.beginAppend(id, for: principal, at: state.machine.offset)
            } catch {
                _ = try? state.machine.bodyInterrupted()
                throw error
            }
            state.streaming = channel
            state.generation += 1
            return (outcome, state.generation)
        }
        guard let generation else {
            if outcome.close { closing = true }
            return try outcome.response.map(send) ?? ()
        }
        try streamBody(into: slot, generation: generation, after: outcome)
    }

    /// Streams the request's body into the upload chunk by chunk, each chunk's machine event and disk write under
    /// the slot's lock; sends the 104s and the final response outside it. An interrupted body (EOF, reset,
    /// timeout, a failed 104, a later request taking over, a malformed chunk, answered 400) keeps every byte
    /// received, synced.
    private func streamBody(into slot: UploadSlot, generation: UInt64, after first: ActionOutcome) throws {
        let final: ActionOutcome?
        do {
            final = try receiveBody(into: slot, generation: generation, after: first)
        } catch let error as HTTPExchangeError where error.code == .malformed {
            interrupt(slot, generation: generation, reason: "malformed")
            return sendStatusAndClose(400, "Bad Request", detail: "malformed request body: \(error)")
        } catch {
            closing = true
            interrupt(slot, generation: generation, reason: interruptionReason(error))
            throw error
        }
        guard let final, let response = final.response else {
            closing = true
            return interrupt(slot, generation: generation, reason: Self.superseded)
        }
        if final.close { closing = true }
        try send(response)
    }

    /// Sends the interim responses and reads the body until the machine has a final response; nil when a later
    /// request took the upload over. A failed write ends the sending, not the reading (`drainBody`).
    private func receiveBody(into slot: UploadSlot, generation: UInt64, after first: ActionOutcome) throws
        -> ActionOutcome?
    {
        var outcome = first
        while true {
            do {
                for interim in outcome.interims { try send(interim) }
                if outcome.response != nil { return outcome }
                try continueIfExpected()
            } catch {
                drainBody(into: slot, generation: generation)
                throw error
            }
            guard let next = try nextOutcome(slot, generation) else { return nil }
            outcome = next
        }
    }

    /// After a failed write (a 104 meeting the peer's RST): the body bytes that arrived before the cut still wait in
    /// the socket's receive queue (Linux keeps them readable after an RST, then reports the end), so they are read
    /// and stored like any others, with nothing more sent, until the stream ends or fails, the body ends, or a later
    /// request takes the upload over. The caller then records the interruption with the write's error.
    private func drainBody(into slot: UploadSlot, generation: UInt64) {
        while let outcome = try? nextOutcome(slot, generation), outcome.response == nil {}
    }

    /// Reads the next body part and runs its event; nil when a later request took the upload over.
    private func nextOutcome(_ slot: UploadSlot, _ generation: UInt64) throws -> ActionOutcome? {
        let part = try nextBodyPart()
        let now = Self.now()
        return try slot.state.withLock { state throws -> ActionOutcome? in
            guard state.generation == generation else { return nil }
            let outcome: ActionOutcome
            if state.contentHashes?.generation != generation {
                state.contentHashes = ContentHashes(generation: generation, algorithms: state.machine.contentAlgorithms)
            }
            switch part {
            case .data(let bytes):
                state.contentHashes?.update(bytes)
                let actions = try state.machine.bodyReceived(byteCount: Int64(bytes.count), now: now)
                outcome = try apply(actions, to: &state, id: slot.id, chunk: bytes)
            case .end:
                let content = state.contentHashes?.finalize() ?? [:]
                let representation = try ContentHashes.representation(
                    state.machine.representationAlgorithms, of: state.writer)
                let actions = try state.machine.bodyEnded(now: now, content: content, representation: representation)
                outcome = try apply(actions, to: &state, id: slot.id)
            }
            endRequest(&state)
            return outcome
        }
    }

    /// The body stopped early: the machine keeps the bytes received, the writer syncs them and ends. Logged with
    /// `reason`, or as superseded when a later request took the upload over.
    private func interrupt(_ slot: UploadSlot, generation: UInt64, reason: String) {
        let cut = slot.state.withLock { state -> (offset: Int64, reason: String)? in
            guard state.generation == generation else { return (state.machine.offset, Self.superseded) }
            guard state.machine.isReceiving else { return nil }
            if let actions = try? state.machine.bodyInterrupted() {
                _ = try? apply(actions, to: &state, id: slot.id)
            }
            endRequest(&state)
            return (state.machine.offset, reason)
        }
        if let cut { logInterrupted(slot.id, offset: cut.offset, reason: cut.reason) }
    }

    /// The log's reason for a body a later request took over (§3.9 of the draft).
    private static let superseded = "superseded by a later request"

    /// A creation repeating an earlier one's `Idempotency-Key`: the stored final response when that upload is
    /// complete (no 104, no new upload), else 409 with the upload's `Location`.
    private func replay(_ record: UploadRecord, _ version: InteropVersion, _ head: RequestHead) throws {
        closeUnlessBodyless(head)
        if let stored = record.finalResponse {
            return try send(UploadResponse(head: Self.head(of: stored)))
        }
        var conflict = ResponseHead(status: 409, reason: "Conflict")
        version.stamp(&conflict.fields)
        conflict.fields.append(name: "Location", value: baseURL(head) + uploadProtocol.resourcePathPrefix + record.id)
        conflict.fields.append(name: "Content-Length", value: "0")
        try send(UploadResponse(head: conflict))
    }

    private static func interim(_ action: UploadAction) -> ResponseHead? {
        guard case .sendInterim(let head) = action else { return nil }
        return head
    }
}
