import FaultEngine
import HTTPWire
import ProxyTranscript
import ResumableUpload

extension ConnectionFlow {
    mutating func receivedRequestBytes(_ bytes: ArraySlice<UInt8>, at now: Duration, budget: some FaultBudgetAccess) {
        guard !toUpstream.isCut else {
            dropAfterCut(bytes, at: now, budget: budget)
            return
        }
        let events: [HTTP1Event]
        do {
            events = try requestParser.feed(bytes)
        } catch {
            // Bytes that fail between requests begin the next exchange.
            let status = error.requestStatus.status
            answer(
                Self.proxyError(status, "squall proxy: malformed request: \(error.detail)"), at: now, close: true,
                exchange: request?.exchange ?? requests + 1)
            return
        }
        handleRequestEvents(events[...], at: now, budget: budget)
    }

    /// The client's parsed events, in order. Once a body piece's fault waits for its creation's announcement, the
    /// events after it wait too (`announcementWait.input`): the body's end, a next head.
    mutating func handleRequestEvents(
        _ events: ArraySlice<HTTP1Event>, at now: Duration, budget: some FaultBudgetAccess
    ) {
        guard !toUpstream.isCut else { return dropAfterCut(events, at: now, budget: budget) }
        for index in events.indices {
            if announcement.wait != nil {
                gate(.clientInput(.events(events[index...])), at: now, budget: budget)
                return
            }
            switch events[index] {
            case .requestHead(let head):
                requestHead(head, at: now, budget: budget)
            case .body(let slice):
                requestBody(slice, at: now, budget: budget)
            case .end(let trailers):
                if let request, request.chunked, !request.answeredLocally,
                    let last = try? HTTP1Serializer.lastChunk(
                        trailers: trailers)
                {
                    toUpstream.push(last[...], at: now)
                }
                request = nil
            case .upgrade:
                opaque = true
            case .opaque(let slice):
                toUpstream.push(slice, at: now)
            case .responseHead:
                break
            }
        }
    }

    /// Bytes read after the request lane was cut: the rest of a body in progress is recorded as dropped; anything
    /// after it (or unparsable) is dropped unrecorded.
    private mutating func dropAfterCut(_ bytes: ArraySlice<UInt8>, at now: Duration, budget: some FaultBudgetAccess) {
        guard request != nil, let events = try? requestParser.feed(bytes) else { return }
        dropAfterCut(events[...], at: now, budget: budget)
    }

    private mutating func dropAfterCut(
        _ events: ArraySlice<HTTP1Event>, at now: Duration, budget: some FaultBudgetAccess
    ) {
        for event in events {
            guard request != nil else { return }
            switch event {
            case .body(let slice): requestBody(slice, at: now, budget: budget)
            case .end: request = nil
            default: continue
            }
        }
    }

    private mutating func requestHead(_ head: RequestHead, at now: Duration, budget: some FaultBudgetAccess) {
        requests += 1
        let exchange = requests
        // An HTTP/2 stream's request is recorded as the client sent it: over HTTP/2 (its front wrote it as HTTP/1.1).
        var received = head
        if isHTTP2Stream { received.version = .http2 }
        emit(.requestHead(exchange: exchange, received), at: now)
        clientHost = head.fields["Host"]
        var forwarded = head
        if let proto = forwardedProto, !head.fields.contains("Forwarded") {
            let host = head.fields["Host"].map { ";host=\"\($0)\"" } ?? ""
            forwarded.fields.append(name: "Forwarded", value: "proto=\(proto)\(host)")
        }
        var local: (response: FaultResponse, decision: FaultDecision)?
        var rewrites: [FaultDecision] = []
        var refused = false
        let outcome = faults.outcome(.requestHead(connection: id, head: head, time: now), budget: budget)
        faultsWatchBody = outcome.watchesBody ?? true
        for decision in outcome.decisions {
            switch decision.action.wire {
            case .answer(let response):
                local = (response, decision)
            case .rewrite(let name, let value):
                rewrites.append(decision)
                Self.rewrite(&forwarded.fields, name: name, value: value)
            case .http2(.goaway(_, .before, _)):
                // A GOAWAY naming the stream before this one refuses this one: it was not processed, so nothing of
                // it goes upstream (the client may send it again, and the server must not have seen it).
                applyInStream(decision, toClientLane: false, at: now)
                refused = true
            default:
                applyInStream(decision, toClientLane: false, at: now)
            }
        }
        let chunked = (try? BodyFraming(request: head)) == .chunked
        request = RequestProgress(
            exchange: exchange, upload: UploadRequestFacts(head), method: head.method, chunked: chunked,
            answeredLocally: local != nil,
            serverAnnounces: announces(
                UploadRequestFacts(
                    forwarded, unversioned: upstreamInterop?.contains(InteropVersion.finalRawValue) == true)))
        if let local {
            let through = answer(local.response, at: now, close: false)
            record(local.decision, at: now, wire: .after(.client, through: through))
            return
        }
        if refused {
            toUpstream.pushMarker(.reset, at: now)
            return
        }
        if !rewrites.isEmpty { emit(.requestForwarded(exchange: exchange, forwarded), at: now) }
        let bytes = (try? HTTP1Serializer.serialize(forwarded)) ?? (try? HTTP1Serializer.serialize(head)) ?? []
        toUpstream.push(bytes[...], at: now)
        forwardedHeads += 1
        for decision in rewrites { record(decision, at: now, wire: afterQueued(toClientLane: false)) }
        responseParser.expectResponse(to: head.method)
        unanswered.append((exchange, head.method))
    }

    /// Body bytes of the current request: asks the engine, then forwards them with its decisions in place.
    private mutating func requestBody(_ slice: ArraySlice<UInt8>, at now: Duration, budget: some FaultBudgetAccess) {
        guard var progress = request, !slice.isEmpty else { return }
        let count = slice.count
        let piece = BodyPiece(
            exchange: progress.exchange, chunked: progress.chunked, bodyOffset: progress.bodyBytes,
            uploadOffset: progress.upload.start.map { $0 + progress.bodyBytes }, bytes: slice)
        progress.bodyBytes += Int64(count)
        request = progress
        guard !progress.answeredLocally, !toUpstream.isCut else {
            recordBody(piece, dropped: true, at: now)
            return
        }
        let event = FaultEvent.requestBody(
            connection: id, count: count, uploadOffset: piece.uploadOffset, uploadLength: progress.upload.length,
            time: now)
        // The connection's faults hear of body bytes only while one of its arms waits on them.
        let outcome = faultsWatchBody ? faults.outcome(event, budget: budget) : FaultOutcome()
        for notice in outcome.unresolved {
            emit(.faultUnresolved(rule: notice.rule, exchange: progress.exchange, reason: notice.reason), at: now)
        }
        place(
            outcome.decisions.sorted { ($0.afterBytes ?? 0) < ($1.afterBytes ?? 0) }, in: piece, at: now, budget: budget
        )
    }

    /// Forwards `piece` with `decisions` (in byte order, `afterBytes` relative to the piece) carried out at their
    /// byte: up to the first cut or answer, or up to a fault that waits for the creation's announcement (which
    /// holds the rest, `AnnouncementGate`). Records what was forwarded and what was dropped apart
    /// (`requestBody`, `requestBodyDropped`).
    mutating func place(
        _ decisions: [FaultDecision], in piece: BodyPiece, at now: Duration, budget: some FaultBudgetAccess
    ) {
        var position = 0
        for (index, decision) in decisions.enumerated() {
            let cut = min(piece.bytes.count, max(position, decision.afterBytes ?? 0))
            forward(piece.dropping(position), count: cut - position, at: now)
            position = cut
            let rest = decisions[index...].map { decision in
                var rebased = decision
                rebased.afterBytes = max(0, (decision.afterBytes ?? 0) - cut)
                return rebased
            }
            gate(.faultReached(rest, piece.dropping(cut)), at: now, budget: budget)
            if announcement.wait != nil { return }
            if case .answer(let response) = decision.action.wire {
                request?.answeredLocally = true
                // The server may have answered first (a wait for the announcement ended so): then it only closes.
                let awaited = unanswered.contains { $0.exchange == piece.exchange } && self.response == nil
                if awaited, !toClient.isCut {
                    record(decision, at: now, wire: .after(.client, through: answer(response, at: now, close: true)))
                } else {
                    toClient.pushMarker(.close, at: now)
                    toUpstream.stopInput()
                    record(decision, at: now, wire: .atEnd)
                }
                recordBody(piece.dropping(position), dropped: true, at: now)
                return
            }
            applyInStream(decision, toClientLane: false, at: now)
            if toUpstream.isCut {
                recordBody(piece.dropping(position), dropped: true, at: now)
                return
            }
        }
        forward(piece.dropping(position), count: piece.bytes.count - position, at: now)
    }

    /// Forwards the first `count` bytes of `piece` and records them.
    private mutating func forward(_ piece: BodyPiece, count: Int, at now: Duration) {
        guard count > 0 else { return }
        var part = piece
        part.bytes = piece.bytes.prefix(count)
        let queuedBefore = toUpstream.queuedTotal
        forwardRequestContent(part.bytes, chunked: piece.chunked, at: now)
        recordBody(part, dropped: false, at: now)
        // A lane that cut the piece (a limit) never writes it whole: no mark claims it.
        guard toUpstream.queuedTotal > queuedBefore, !toUpstream.isCut else { return }
        let through = piece.bodyOffset + Int64(count)
        written.queue(
            WrittenBody.Mark(
                start: queuedBefore, position: toUpstream.queuedTotal, exchange: piece.exchange, through: through,
                uploadThrough: piece.uploadOffset.map { $0 + Int64(count) }))
    }

    /// Records `piece`'s bytes as forwarded or dropped.
    private mutating func recordBody(_ piece: BodyPiece, dropped: Bool, at now: Duration) {
        guard !piece.bytes.isEmpty else { return }
        let length = Int64(piece.bytes.count)
        let (exchange, offset, upload) = (piece.exchange, piece.bodyOffset, piece.uploadOffset)
        emitBody(
            dropped
                ? .requestBodyDropped(exchange: exchange, offset: offset, length: length, uploadOffset: upload)
                : .requestBody(exchange: exchange, offset: offset, length: length, uploadOffset: upload),
            at: now)
    }

    private mutating func forwardRequestContent(_ bytes: ArraySlice<UInt8>, chunked: Bool, at now: Duration) {
        guard !bytes.isEmpty else { return }
        toUpstream.push(chunked ? HTTP1Serializer.chunk(bytes)[...] : bytes, at: now)
    }

    mutating func receivedResponseBytes(_ bytes: ArraySlice<UInt8>, at now: Duration, budget: some FaultBudgetAccess) {
        guard !toClient.isCut else { return }
        do {
            handleResponseEvents(try responseParser.feed(bytes), at: now, budget: budget)
        } catch {
            answer(
                Self.proxyError(502, "squall proxy: malformed response from upstream: \(error)"), at: now, close: true)
        }
    }

    mutating func handleResponseEvents(_ events: [HTTP1Event], at now: Duration, budget: some FaultBudgetAccess) {
        for event in events where !toClient.isCut {
            switch event {
            case .responseHead(let head):
                responseHead(head, at: now, budget: budget)
            case .body(let slice):
                responseBody(slice, at: now, budget: budget)
            case .end(let trailers):
                if let response, response.chunked, let last = try? HTTP1Serializer.lastChunk(trailers: trailers) {
                    toClient.push(last[...], at: now)
                }
                response = nil
            case .upgrade:
                opaque = true
            case .opaque(let slice):
                toClient.push(slice, at: now)
            case .requestHead:
                break
            }
        }
    }

    private mutating func responseHead(_ head: ResponseHead, at now: Duration, budget: some FaultBudgetAccess) {
        let pending = unanswered.first ?? (exchange: requests, method: .get)
        // An HTTP/2 stream's response is recorded as its client got it, over HTTP/2 (as its request is).
        var received = head
        if isHTTP2Stream { received.version = .http2 }
        let kind: TranscriptEvent.Kind =
            head.isInformational
            ? .interimResponse(exchange: pending.exchange, received)
            : .finalResponse(exchange: pending.exchange, received)
        emit(kind, at: now)
        if !head.isInformational, !unanswered.isEmpty { unanswered.removeFirst() }
        if !head.isInformational, announcement.deferredCut != nil {
            // A reset reached before this answer waits only for the interim heads queued ahead of it: the final
            // response came after the cut's byte, so none of it reaches the client (the cut goes next).
            toClient.stopInput()
            return
        }
        var forwarded = head
        var strippedBy: String?
        var rewrites: [FaultDecision] = []
        let outcome = faults.outcome(.responseHead(connection: id, head: head, time: now), budget: budget)
        faultsWatchBody = outcome.watchesBody ?? true
        for decision in outcome.decisions {
            switch decision.action.wire {
            case .stripInterim:
                record(decision, at: now, wire: .now)
                strippedBy = decision.rule
            case .dropFinalHead:
                // The final head is not forwarded: the connection closes instead.
                closeClient(decision, at: now)
                return
            case .rewrite(let name, let value):
                rewrites.append(decision)
                Self.rewrite(&forwarded.fields, name: name, value: value)
            default:
                applyInStream(decision, toClientLane: true, at: now)
            }
        }
        if !head.isInformational {
            let framing = try? BodyFraming(response: head, requestMethod: pending.method)
            response = ResponseProgress(exchange: pending.exchange, chunked: framing == .chunked)
        }
        guard strippedBy == nil else {
            if head.isInformational {
                let interim = Self.interimHead(head, exchange: pending.exchange)
                gate(.interim([], interim, strippedBy: strippedBy), at: now, budget: budget)
            }
            return
        }
        rewriteLocation(&forwarded.fields, exchange: pending.exchange, at: now)
        let bytes = (try? HTTP1Serializer.serialize(forwarded)) ?? (try? HTTP1Serializer.serialize(head)) ?? []
        if head.isInformational {
            let interim = Self.interimHead(head, exchange: pending.exchange)
            gate(.interim(bytes[...], interim, strippedBy: nil), at: now, budget: budget)
        } else {
            // The exchange is answered: heads kept back for a cut that can no longer come go first.
            gate(.answered(pending.exchange), at: now, budget: budget)
            toClient.push(bytes[...], at: now)
        }
        for decision in rewrites { record(decision, at: now, wire: afterQueued(toClientLane: true)) }
    }

    /// Points an absolute `Location` on the upstream at the proxy instead (see `upstreamOrigins`).
    private mutating func rewriteLocation(_ fields: inout HTTPFields, exchange: Int, at now: Duration) {
        guard let location = fields["Location"], let origin = UploadRequest.origin(of: location),
            upstreamOrigins.contains(origin), let proto = forwardedProto, let host = clientHost
        else { return }
        let rewritten = "\(proto)://\(host)" + location.dropFirst(origin.count)
        fields.set(rewritten, for: "Location")
        emit(.locationRewritten(exchange: exchange, from: location, to: rewritten), at: now)
    }

    private mutating func responseBody(_ slice: ArraySlice<UInt8>, at now: Duration, budget: some FaultBudgetAccess) {
        guard var progress = response, !slice.isEmpty else { return }
        let count = slice.count
        let kind = TranscriptEvent.Kind.responseBody(
            exchange: progress.exchange, offset: progress.bodyBytes, length: Int64(count))
        emitBody(kind, at: now)
        progress.bodyBytes += Int64(count)
        response = progress
        var position = 0
        let event = FaultEvent.responseBody(connection: id, count: count, time: now)
        let decisions = faultsWatchBody ? faults.outcome(event, budget: budget).decisions : []
        for decision in decisions.sorted(by: { ($0.afterBytes ?? 0) < ($1.afterBytes ?? 0) }) {
            let cut = min(count, max(position, decision.afterBytes ?? 0))
            forwardResponseContent(slice.dropFirst(position).prefix(cut - position), chunked: progress.chunked, at: now)
            position = cut
            applyInStream(decision, toClientLane: true, at: now)
        }
        forwardResponseContent(slice.dropFirst(position), chunked: progress.chunked, at: now)
    }

    private mutating func forwardResponseContent(_ bytes: ArraySlice<UInt8>, chunked: Bool, at now: Duration) {
        guard !bytes.isEmpty else { return }
        toClient.push(chunked ? HTTP1Serializer.chunk(bytes)[...] : bytes, at: now)
    }
}
