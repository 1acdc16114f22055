import ResumableUpload
import Scenario
import UploadClient

/// Cases for what the newest drafts require and earlier ones did not (interop 9, -12; and `final`): each runs from
/// the version whose draft introduced it and names its section and pull request.
extension CheckCatalog {
    static let newest: [CheckCase] = [
        CheckCase(
            "limits-on-announcement",
            checks:
                "a server with limits announces them: Upload-Limit on the creation's 104 and on its 201 (-09 §4.2.2)",
            skip: limitsSkip
        ) { session throws(CheckFailure) in
            let answer = try session.send(
                session.creation(complete: false, body: CheckSession.content(partial), length: length)
            ).expectSuccess()
            let missing = (answer.announcements.prefix(1) + (answer.final.map { [$0] } ?? [])).filter {
                $0.fields[UploadLimits.fieldName] == nil
            }
            guard missing.isEmpty else {
                throw CheckFailure(
                    expected: "Upload-Limit on the 104 and the 201 (the profile states a max-size)",
                    observed: answer.summary(limits: true) + ", \(missing.count) of them without Upload-Limit")
            }
            return answer.summary(limits: true)
        },
        CheckCase(
            "get-offset",
            checks:
                "GET on a partial upload retrieves its offset as HEAD does: 2xx with Upload-Offset (-12 §4.3, #3467)",
            skip: CheckCase.from(9, "GET on an upload resource is an offset retrieval from draft -12")
        ) { session throws(CheckFailure) in
            let resource = try session.createPartial(sent: partial, of: length)
            let request = CheckRequest(.get, resource, fields: session.uploadFields(complete: nil))
            let answer = try session.send(request).expectSuccess("2xx at offset \(partial)")
            try answer.expectState(offset: Int64(partial), complete: false)
            return answer.summary()
        },
        CheckCase(
            "append-past-length",
            checks: "PATCH that would pass the upload's known length is rejected, and the upload refuses any more "
                + "(HEAD 404 or 410; -12 §4.4.2)",
            skip: CheckCase.from(9, "checked against -12's text; -08 to -11 carry the rule too, not checked here")
        ) { session throws(CheckFailure) in
            let resource = try session.createPartial(sent: partial, of: length)
            let past = session.append(
                resource, offset: "\(partial)", complete: false, body: CheckSession.content(Int(length)))
            let answer = try session.send(past).expectRejection("4xx (the append passes the length \(length))")
            let head = try session.send(session.offsetRetrieval(resource)).expect(
                [404, 410], "404 or 410 (the upload is invalid after an append past its length)")
            return "\(answer.summary()); HEAD \(head.summary())"
        },
    ]

    /// Upload-Limit on the 104 and 201 is required from interop 8, and the case needs a limit the profile states.
    static func limitsSkip(_ version: InteropVersion, _ profile: ServerProfile?) -> String? {
        guard version.rawValue >= 8 else {
            return "Upload-Limit on the 104 and 201 is required from -09 (interop 8 on)"
        }
        return withoutMaxSize(version, profile)
    }
}
