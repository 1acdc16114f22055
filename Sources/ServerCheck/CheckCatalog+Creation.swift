import ResumableUpload
import Scenario
import UploadClient

/// Creation cases (§3.2 of the digest; §8.3 cases 3 to 8).
extension CheckCatalog {
    static let creation: [CheckCase] = [
        CheckCase(
            "create-complete",
            checks: "a complete creation gets exactly one 104 announcing the upload (Location, the interop version), "
                + "then a 2xx"
        ) { session throws(CheckFailure) in
            let body = CheckSession.content(Int(length))
            let answer = try session.send(session.creation(complete: true, body: body, length: length))
            try answer.expectSuccess()
            let announcing = answer.announcements.filter { $0.fields["Location"] != nil }
            guard announcing.count == 1 else {
                throw CheckFailure(
                    expected: "exactly one 104 announcing the upload (with Location)",
                    observed: "\(answer.interimCount) (\(announcing.count) with Location), then \(answer.summary())")
            }
            return "104 with Location, then \(answer.summary())"
        },
        CheckCase(
            "create-partial",
            checks: "a partial creation gets a 104 with Location, then 201 with the same Location, flagged incomplete"
        ) { session throws(CheckFailure) in
            let body = CheckSession.content(partial)
            let answer = try session.send(session.creation(complete: false, body: body, length: length))
            try answer.expect([201], "201 Created")
            _ = try answer.announcedLocation()
            return answer.summary()
        },
        CheckCase(
            "create-empty-partial",
            checks: "an empty partial creation gets an upload resource (2xx, Location) whose HEAD reports offset 0"
        ) { session throws(CheckFailure) in
            let resource = try session.createPartial(sent: 0, of: length)
            let head = try session.expectOffset(
                resource, 0, complete: false, statedLength: session.uploadLength(length))
            return "2xx with Location; HEAD \(head.summary())"
        },
        CheckCase(
            "create-empty-complete", checks: "an empty complete creation is answered 2xx (an empty upload)"
        ) { session throws(CheckFailure) in
            try session.send(session.creation(complete: true, body: [], length: 0)).expectSuccess().summary()
        },
        CheckCase(
            "length-mismatch", checks: "a complete creation whose Upload-Length differs from Content-Length gets 400",
            skip: CheckCase.from(6, "Upload-Length is defined from draft -05")
        ) { session throws(CheckFailure) in
            let request = session.creation(complete: true, body: CheckSession.content(16), length: 100)
            return try session.send(request).expect([400], "400 (inconsistent lengths)").summary()
        },
        CheckCase(
            "max-size", checks: "a creation whose Upload-Length passes the profile's max-size is refused with a 4xx",
            skip: withoutMaxSize
        ) { session throws(CheckFailure) in
            let tooLarge = (session.profile?.maxSize ?? 0) + 1
            let request = session.creation(complete: false, body: [], length: tooLarge)
            return try session.send(request).expectRejection("4xx (413 Content Too Large)").summary(limits: true)
        },
        CheckCase(
            "cut-creation",
            checks: "a creation cut after 1024 of its 4096 bytes keeps them: HEAD reports offset 1024, incomplete"
        ) { session throws(CheckFailure) in
            let (sent, declared): (Int, Int64) = (1024, 4096)
            var request = session.creation(complete: true, body: CheckSession.content(sent), length: declared)
            request.head.fields.set(String(declared), for: "Content-Length")
            request.delivery = .cutAfterAnnouncement
            request.statedLength = declared
            let answer = try session.send(request)
            if answer.final != nil {
                throw CheckFailure(
                    expected: "a 104 announcing the upload before the body ended",
                    observed: answer.summary(limits: true))
            }
            let resource = try session.resource(answer.announcedLocation())
            let head = try session.awaitOffset(resource, Int64(sent), statedLength: declared)
            return "cut after a 104 with Location; HEAD \(head.summary())"
        },
    ]
}

extension CheckCatalog {
    /// Why `max-size` cannot run: a version without `Upload-Length`, or a profile without a max-size.
    static func withoutMaxSize(_ version: InteropVersion, _ profile: ServerProfile?) -> String? {
        guard version.supportsUploadLength else {
            return "stating a size without sending it takes Upload-Length (interop 6 on)"
        }
        return profile?.maxSize == nil ? "the profile states no max-size (limits.max-size)" : nil
    }
}

extension CheckSession {
    /// HEAD on `resource` until it reports `offset` (incomplete): a server may still be storing the bytes of a
    /// request cut a moment ago. It asks again while it reports less, 20 ms apart, within the case's time.
    func awaitOffset(_ resource: HTTPURL, _ offset: Int64, statedLength: Int64?) throws(CheckFailure)
        -> CheckAnswer
    {
        while true {
            let answer = try send(offsetRetrieval(resource, statedLength: statedLength)).expectSuccess()
            let reported = answer.facts?.offset ?? -1
            if reported < offset, reported >= 0, deadline.remaining > .milliseconds(100) {
                deadline.pause(.milliseconds(20))
                continue
            }
            try answer.expectState(offset: offset, complete: false)
            return answer
        }
    }
}
