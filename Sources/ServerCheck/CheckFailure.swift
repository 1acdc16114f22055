/// Why a case failed: what it expected at the step that failed and what the server did instead.
struct CheckFailure: Error, Sendable, CustomStringConvertible {
    var expected: String
    var observed: String

    init(expected: String, observed: String) {
        self.expected = expected
        self.observed = observed
    }

    var description: String { "expected \(expected); got \(observed)" }
}

/// What a step of a case requires of an answer; each throws a `CheckFailure` naming the request.
extension CheckAnswer {
    /// The final status is one of `statuses`.
    @discardableResult
    func expect(_ statuses: Set<Int>, _ what: String) throws(CheckFailure) -> CheckAnswer {
        guard let status = final?.status, statuses.contains(status) else {
            throw CheckFailure(expected: "\(request.method) to be answered \(what)", observed: summary(limits: true))
        }
        return self
    }

    /// A 2xx final status.
    @discardableResult
    func expectSuccess(_ what: String = "2xx") throws(CheckFailure) -> CheckAnswer {
        try expect(Set(200...299), what)
    }

    /// A 4xx final status.
    @discardableResult
    func expectRejection(_ what: String = "4xx") throws(CheckFailure) -> CheckAnswer {
        try expect(Set(400...499), what)
    }

    /// The upload resource it announced.
    func announcedLocation() throws(CheckFailure) -> String {
        guard let location else {
            throw CheckFailure(
                expected: "\(request.method) to announce the upload resource (Location)",
                observed: "\(summary(limits: true)) after \(interimCount), no Location")
        }
        return location
    }

    /// The final response reports `offset` and says the upload is complete or not.
    func expectState(offset: Int64, complete: Bool) throws(CheckFailure) {
        let state = complete ? "complete" : "incomplete"
        guard let facts, facts.offset == offset, facts.complete == complete else {
            throw CheckFailure(
                expected: "\(request.method) to report offset \(offset), \(state)", observed: summary(limits: true))
        }
    }
}
