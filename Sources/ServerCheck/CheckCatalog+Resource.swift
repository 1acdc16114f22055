import ResumableUpload
import Scenario
import UploadClient

/// Cases on an upload resource (§3.4 to §3.6 of the digest; §8.3 cases 9 to 22): offset retrieval, append,
/// cancellation. Each creates its own upload of `length` bytes first, with `partial` of them sent.
extension CheckCatalog {
    static let retrieval: [CheckCase] = [
        CheckCase(
            "head-offset",
            checks: "HEAD on a partial upload answers 2xx (204; 200 from interop 5) with its offset, flagged incomplete"
        ) { session throws(CheckFailure) in
            let resource = try session.createPartial(sent: partial, of: length)
            let stated = session.uploadLength(length)
            return try session.expectOffset(resource, Int64(partial), complete: false, statedLength: stated).summary()
        },
        CheckCase(
            "head-unknown", checks: "HEAD on an upload that does not exist answers 404 (or 410 from interop 7)"
        ) { session throws(CheckFailure) in
            let resource = try session.createPartial(sent: partial, of: length)
            let unknown = try session.resource(unknownResource(resource.description))
            let statuses: Set<Int> = session.version.rawValue >= 7 ? [404, 410] : [404]
            let answer = try session.send(session.offsetRetrieval(unknown)).expect(statuses, "404 Not Found")
            return "\(unknown.target): \(answer.summary())"
        },
        CheckCase(
            "head-after-completion", checks: "HEAD after the completing request reports the whole upload, complete",
            skip: withoutRetention
        ) { session throws(CheckFailure) in
            let resource = try session.createComplete(length: Int(length))
            return try session.expectOffset(resource, length, complete: true, statedLength: length).summary()
        },
    ]

    static let append: [CheckCase] = [
        CheckCase(
            "append", checks: "PATCH at the upload's offset appends: 2xx, then HEAD reports the new offset"
        ) { session throws(CheckFailure) in
            let resource = try session.createPartial(sent: partial, of: length)
            let request = session.append(
                resource, offset: "\(partial)", complete: false, body: CheckSession.content(16))
            let answer = try session.send(request).expectSuccess()
            let head = try session.expectOffset(resource, Int64(partial + 16), complete: false)
            return "\(answer.summary()); HEAD \(head.summary())"
        },
        CheckCase(
            "append-wrong-offset",
            checks: "PATCH at a wrong offset gets 409 with the upload's Upload-Offset, and the upload is kept"
        ) { session throws(CheckFailure) in
            let resource = try session.createPartial(sent: partial, of: length)
            let request = session.append(resource, offset: "16", complete: false, body: CheckSession.content(16))
            let answer = try session.send(request).expect([409], "409 Conflict")
            guard answer.facts?.offset == Int64(partial) else {
                throw CheckFailure(
                    expected: "the 409 to carry the upload's offset, Upload-Offset: \(partial)",
                    observed: answer.summary(limits: true))
            }
            let head = try session.expectOffset(resource, Int64(partial), complete: false)
            return "\(answer.summary()); HEAD \(head.summary())"
        },
        rejectedAppend(
            "append-without-content-type", checks: "PATCH without Content-Type gets a 4xx", from: 6,
            offset: "\(partial)", type: .absent),
        rejectedAppend(
            "append-wrong-content-type", checks: "PATCH with Content-Type: application/octet-stream gets a 4xx",
            from: 6, offset: "\(partial)", type: .other("application/octet-stream")),
        rejectedAppend(
            "append-without-offset", checks: "PATCH without Upload-Offset gets 400", offset: nil, statuses: [400]),
        rejectedAppend(
            "append-negative-offset", checks: "PATCH with Upload-Offset: -1 gets 400", offset: "-1", statuses: [400]),
        rejectedAppend(
            "append-malformed-offset", checks: "PATCH with Upload-Offset: abc (not an sf-Integer) gets 400",
            offset: "abc", statuses: [400]),
        CheckCase(
            "append-complete", checks: "PATCH with the rest of the upload and the completion flag completes it: 2xx"
        ) { session throws(CheckFailure) in
            let resource = try session.createPartial(sent: partial, of: length)
            let rest = CheckSession.content(Int(length) - partial)
            let request = session.append(resource, offset: "\(partial)", complete: true, body: rest)
            return try session.send(request).expectSuccess().summary()
        },
        CheckCase(
            "append-after-completion", checks: "PATCH to a completed upload is rejected with a 4xx"
        ) { session throws(CheckFailure) in
            let resource = try session.createComplete(length: Int(length))
            let request = session.append(resource, offset: "\(length)", complete: true, body: CheckSession.content(1))
            return try session.send(request).expectRejection().summary()
        },
    ]

    static let cancellation: [CheckCase] = [
        CheckCase(
            "delete", checks: "DELETE ends the upload (2xx; 204 in interop 7), then HEAD answers 404 or 410"
        ) { session throws(CheckFailure) in
            let resource = try session.createPartial(sent: partial, of: length)
            let statuses: Set<Int> = session.version.rawValue == 7 ? [204] : Set(200...299)
            let deleted = try session.send(session.cancellation(resource)).expect(statuses, "204 No Content")
            let head = try session.send(session.offsetRetrieval(resource)).expect([404, 410], "404 or 410")
            return "\(deleted.summary()); HEAD \(head.summary())"
        }
    ]

    /// A PATCH to a partial upload that the server must reject (`statuses`, else any 4xx), leaving the upload as
    /// it was (HEAD still reports `partial`).
    static func rejectedAppend(
        _ name: String, checks: String, from first: Int = 3, offset: String?,
        type: CheckSession.AppendType = .required, statuses: Set<Int> = Set(400...499)
    ) -> CheckCase {
        CheckCase(
            name, checks: checks + ", and the upload is unchanged",
            skip: CheckCase.from(first, "application/partial-upload is required from draft -04")
        ) { session throws(CheckFailure) in
            let resource = try session.createPartial(sent: partial, of: length)
            let request = session.append(
                resource, offset: offset, complete: false, body: CheckSession.content(16), type: type)
            let what = statuses.count == 1 ? "\(statuses.first!)" : "4xx"
            let answer = try session.send(request).expect(statuses, what)
            let head = try session.expectOffset(resource, Int64(partial), complete: false)
            return "\(answer.summary()); HEAD \(head.summary())"
        }
    }

    /// Why a case on a completed upload cannot run: the profile does not say completed uploads are kept.
    static func withoutRetention(_ version: InteropVersion, _ profile: ServerProfile?) -> String? {
        profile?.retention == nil ? "the profile does not say completed uploads are kept (retention)" : nil
    }

    /// `url` with the last path segment's letters and digits turned to zeros (another to-be-unknown upload of
    /// the same shape: `/upload/7f3a-b2` → `/upload/0000-00`), or `f`s when it was zeros already.
    static func unknownResource(_ url: String) -> String {
        let slash = url.lastIndex(of: "/").map(url.index(after:)) ?? url.startIndex
        let segment = url[slash...]
        let zeros = String(segment.map { $0.isLetter || $0.isNumber ? "0" : $0 })
        let replacement = zeros == segment ? String(segment.map { $0 == "0" ? "f" : $0 }) : zeros
        return url[..<slash] + (replacement.isEmpty ? "0" : replacement)
    }
}
