import HTTPWire

extension TransferStateMachine {
    /// The first requests: the creation, or with a resume location (and an interop version) HEAD on that upload
    /// resource (§3.4), which then takes the creation's place as the `Location` every response must repeat.
    mutating func start() -> [Action] {
        guard let stored = configuration.resumeLocation, version != nil else { return send(creation()) }
        do {
            locationURL = try url.resolving(stored)
        } catch {
            return fail(TransferError(.invalidRequest, "unusable resume location '\(stored)': \(error.detail)"))
        }
        location = stored
        reconciling = true
        phase = .retrieving(afterCancel: false)
        return [.report(.reconciling(location: stored))] + send(offsetRetrieval())
    }

    /// The resume location's HEAD reported `offset`: the bytes the server holds count as sent (a relaunched client
    /// cannot know how many the earlier one wrote), so only an offset beyond the file is impossible.
    mutating func confirmReconciliation(offset: Int64) {
        reconciling = false
        highestSent = max(highestSent, min(offset, total))
    }

    /// The server no longer knows the upload resource (404, 410: cancelled, expired, or lost in a crash): nothing of
    /// it can be used, and no duplicate can arise, so the upload starts over with a creation from byte 0.
    mutating func restartFromZero() -> [Action] {
        reconciling = false
        location = nil
        locationURL = nil
        highestSent = 0
        acknowledged = 0
        return [.report(.restartedFromZero)] + send(creation())
    }
}
