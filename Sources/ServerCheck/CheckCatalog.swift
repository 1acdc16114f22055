import ResumableUpload

/// Every case of the check, in the order the report lists them: the digest's §8.3 conformance cases (discovery,
/// plain fallback, creation, offset retrieval, append, cancellation) and the robustness cases (heads in pieces
/// and slow, a huge head, bad offsets). Each runs at every interop version checked, on uploads of its own.
enum CheckCatalog {
    static let cases: [CheckCase] = discovery + creation + retrieval + append + cancellation + newest + robustness

    /// The upload length the cases use, and how much a partial creation sends of it.
    static let length: Int64 = 64
    static let partial = 32

    static let discovery: [CheckCase] = [
        CheckCase(
            "options", checks: "OPTIONS on the creation URL answers 2xx with Upload-Limit",
            skip: CheckCase.from(6, "OPTIONS discovery is defined from draft -05")
        ) { session throws(CheckFailure) in
            try session.send(session.options()).expectSuccess().summary(limits: true)
        },
        CheckCase(
            "plain-without-version",
            checks: "a creation without Upload-Draft-Interop-Version is served as a plain upload: no 104, 2xx",
            skip: CheckCase.unlessUnversioned, unversionedContradicts: true
        ) { session throws(CheckFailure) in
            var request = session.creation(complete: true, body: CheckSession.content(16))
            request.head.fields.remove(InteropVersion.fieldName)
            return try session.send(request).expectPlain().summary()
        },
        CheckCase(
            "plain-unknown-version",
            checks: "a creation at interop version 99 (one no server knows) is served as a plain upload: no 104, 2xx"
        ) { session throws(CheckFailure) in
            var request = session.creation(complete: true, body: CheckSession.content(16))
            request.head.fields.set("99", for: InteropVersion.fieldName)
            return try session.send(request).expectPlain().summary()
        },
    ]
}

extension CheckAnswer {
    /// Served as a plain request: no 104, a 2xx.
    func expectPlain() throws(CheckFailure) -> CheckAnswer {
        guard announcements.isEmpty else {
            throw CheckFailure(
                expected: "no 104 (a plain upload for a version the server does not serve)",
                observed: "\(interimCount), then \(summary(limits: true))")
        }
        return try expectSuccess("2xx (a plain upload, never a 4xx for the version)")
    }
}
