import Foundation
import HTTPWire
import ResumableUpload
import TLSKit
import TestSupport
import Testing
import UploadClient

/// The transfer against scripted servers that misbehave in ways the reference server never does: offsets that go
/// backwards or beyond what was sent, a 104 then a reset, a 104 of another interop version, a lost final
/// response, a `Location` that changes, a 409, early final responses.
struct ScriptedServerTests {
    static let version = InteropVersion(rawValue: 8)!
    static let length = 20_000

    /// A transfer to `server` whose preflight is already cached as resumable (no OPTIONS in the scripts).
    static func run(
        _ server: ScriptedServer, _ fixture: TransferFixture, file path: String,
        configure: (inout TransferConfiguration) -> Void = { _ in }
    ) throws -> TransferOutcome {
        let url = server.url + "/upload"
        let cache = PreflightCache()
        cache.store(.resumable(UploadLimits(minSize: 0)), for: url, version: version)
        var configuration = TransferFixture.configuration(version)
        configure(&configuration)
        return try fixture.transfer(path, to: url, configuration, cache: cache).run()
    }

    /// The creation's 104 announcing `<url>/upload/<id>`.
    static func announce(_ url: String, id: String = "abc", version: Int = 8) -> ScriptedStep.Interim {
        ScriptedStep.interim104(version: version, location: url + "/upload/" + id)
    }

    static func head(offset: Int64, complete: Bool) -> ScriptedStep {
        ScriptedStep(
            respond: 204,
            fields: [
                "Upload-Draft-Interop-Version": "8", "Upload-Offset": "\(offset)",
                "Upload-Complete": complete ? "?1" : "?0",
            ])
    }

    static let completed = ScriptedStep(respond: 200, fields: ["Upload-Complete": "?1", "x-server-resource-id": "abc"])

    static func methods(_ server: ScriptedServer) -> [String] {
        server.requests.map(\.head.method.rawValue)
    }

    @Test func a104ThenAResetResumesWithHeadAndBacktracksToTheServersOffset() throws {
        let fixture = try TransferFixture()
        let (path, bytes) = try fixture.file(Self.length)
        let scripted = try ScriptedServer { url in
            [
                ScriptedStep(interims: [Self.announce(url)], bodyLimit: 5000, ending: .reset),
                Self.head(offset: 3000, complete: false),
                Self.completed,
            ]
        }
        let outcome = try Self.run(scripted, fixture, file: path)
        #expect(outcome.result == .succeeded, "\(outcome)")
        #expect(outcome.resumeAttempts == 1 && fixture.delays.all == [.seconds(1)])
        #expect(Self.methods(scripted) == ["POST", "HEAD", "PATCH"])
        let patch = scripted.requests[2]
        #expect(patch.head.target == "/upload/abc")
        #expect(patch.head.fields["Upload-Offset"] == "3000")
        #expect(patch.head.fields["Upload-Complete"] == "?1")
        #expect(patch.head.fields["Content-Type"] == "application/partial-upload")
        #expect(Array(scripted.requests[0].body.prefix(3000)) + patch.body == bytes)
        #expect(fixture.events.all.contains { if case .backtrack(_, 3000) = $0 { true } else { false } })
    }

    @Test func offsetsThatGoBackwardsFailTheUploadAndDeleteIt() throws {
        let fixture = try TransferFixture()
        let (path, _) = try fixture.file(Self.length)
        let scripted = try ScriptedServer { url in
            [
                ScriptedStep(
                    interims: [
                        Self.announce(url), ScriptedStep.interim104(version: 8, offset: 4000, afterBytes: 4000),
                    ],
                    bodyLimit: 5000, ending: .close),
                Self.head(offset: 2000, complete: false),
                ScriptedStep(respond: 204),
            ]
        }
        let outcome = try Self.run(scripted, fixture, file: path)
        #expect(outcome.error?.code == .badServerResponse)
        #expect(outcome.error?.detail.contains("went back from 4000 to 2000") == true)
        #expect(Self.methods(scripted) == ["POST", "HEAD", "DELETE"])
        #expect(scripted.requests[2].head.target == "/upload/abc")
        #expect(fixture.events.all.contains(.deleteSent(location: scripted.url + "/upload/abc")))
        #expect(fixture.events.all.contains(.interimReceived(location: nil, offset: 4000)))
    }

    @Test func anOffsetBeyondWhatWasSentFailsTheUploadAndDeletesIt() throws {
        let fixture = try TransferFixture()
        let (path, _) = try fixture.file(Self.length)
        let scripted = try ScriptedServer { url in
            [
                ScriptedStep(interims: [Self.announce(url)], bodyLimit: 5000, ending: .close),
                Self.head(offset: Int64(Self.length) + 1, complete: false),
                ScriptedStep(respond: 204),
            ]
        }
        let outcome = try Self.run(scripted, fixture, file: path)
        #expect(outcome.error?.code == .badServerResponse)
        #expect(Self.methods(scripted) == ["POST", "HEAD", "DELETE"])
        #expect(!fixture.events.methods.contains("PATCH"))
    }

    @Test func a104OfAnotherInteropVersionIsIgnored() throws {
        let fixture = try TransferFixture()
        let (path, _) = try fixture.file(Self.length)
        let scripted = try ScriptedServer { url in
            [ScriptedStep(interims: [Self.announce(url, version: 7)], bodyLimit: 5000, ending: .close)]
        }
        let outcome = try Self.run(scripted, fixture, file: path)
        #expect(outcome.error?.code == .networkConnectionLost)
        #expect(outcome.location == nil && outcome.resumeAttempts == 0)
        #expect(Self.methods(scripted) == ["POST"])
        #expect(!fixture.events.all.contains { if case .interimReceived = $0 { true } else { false } })
    }

    @Test(arguments: [true, false])
    func aLostFinalResponseIsSettledByHead(serverSaysComplete: Bool) throws {
        let fixture = try TransferFixture()
        let (path, bytes) = try fixture.file(Self.length)
        let scripted = try ScriptedServer { url in
            [
                ScriptedStep(interims: [Self.announce(url)], ending: .close),
                Self.head(offset: Int64(Self.length), complete: serverSaysComplete),
                Self.completed,
            ]
        }
        let outcome = try Self.run(scripted, fixture, file: path)
        #expect(outcome.result == .succeeded)
        #expect(outcome.completionConfirmedByOffsetRetrieval == serverSaysComplete)
        #expect(scripted.requests[0].body == bytes)
        if serverSaysComplete {
            #expect(Self.methods(scripted) == ["POST", "HEAD"])
            #expect(outcome.status == 204)
        } else {
            // Everything arrived but the upload is not complete: an empty PATCH completes it.
            #expect(Self.methods(scripted) == ["POST", "HEAD", "PATCH"])
            #expect(scripted.requests[2].head.fields["Content-Length"] == "0")
            #expect(scripted.requests[2].head.fields["Upload-Complete"] == "?1")
            #expect(outcome.headerFields["x-server-resource-id"] == "abc")
        }
    }

    @Test func aLocationThatChangesIsABadServerResponse() throws {
        let fixture = try TransferFixture()
        let (path, _) = try fixture.file(Self.length)
        let scripted = try ScriptedServer { url in
            [ScriptedStep(interims: [Self.announce(url)], respond: 201, fields: ["Location": url + "/upload/other"])]
        }
        let outcome = try Self.run(scripted, fixture, file: path)
        #expect(outcome.error?.code == .badServerResponse)
        #expect(outcome.error?.detail.contains("Location changed") == true)
        #expect(outcome.status == 201 && outcome.headerFields["location"] == scripted.url + "/upload/other")
    }

    /// The request that completes the upload states the file's SHA-256 in `Repr-Digest`; the partial creation
    /// before it does not, nor does any request with `statesRepresentationDigest` off (the control).
    @Test(arguments: [true, false])
    func theCompletingRequestStatesTheFilesDigest(states: Bool) throws {
        let fixture = try TransferFixture()
        let (path, bytes) = try fixture.file(Self.length)
        let scripted = try ScriptedServer { url in
            [
                ScriptedStep(
                    interims: [Self.announce(url)], respond: 201,
                    fields: ["Location": url + "/upload/abc", "Upload-Complete": "?0", "Upload-Offset": "10000"]),
                ScriptedStep(respond: 200, fields: ["Upload-Complete": "?1"]),
            ]
        }
        let outcome = try Self.run(scripted, fixture, file: path) {
            $0.appendSize = Int64(Self.length / 2)
            $0.statesRepresentationDigest = states
        }
        #expect(outcome.error == nil)
        #expect(Self.methods(scripted) == ["POST", "PATCH"])
        #expect(scripted.requests[0].head.fields["Repr-Digest"] == nil)
        let stated = scripted.requests[1].head.fields["Repr-Digest"]
        let digest = "sha-256=:" + Data(MessageDigest.digest(of: bytes, .sha256)).base64EncodedString() + ":"
        #expect(stated == (states ? digest : nil))
    }

    @Test func aLocationInAnAppendsInterimMustMatchTheCreations() throws {
        let fixture = try TransferFixture()
        let (path, _) = try fixture.file(Self.length)
        let scripted = try ScriptedServer { url in
            [
                ScriptedStep(
                    interims: [Self.announce(url)], respond: 201,
                    fields: ["Location": url + "/upload/abc", "Upload-Complete": "?0", "Upload-Offset": "10000"]),
                ScriptedStep(
                    interims: [Self.announce(url, id: "moved")], respond: 200, fields: ["Upload-Complete": "?1"]),
            ]
        }
        let outcome = try Self.run(scripted, fixture, file: path) { $0.appendSize = 10_000 }
        #expect(outcome.error?.code == .badServerResponse)
        #expect(Self.methods(scripted) == ["POST", "PATCH"])
    }

    @Test func a409ToAnAppendResyncsToTheServersOffset() throws {
        let fixture = try TransferFixture()
        let (path, bytes) = try fixture.file(Self.length)
        let scripted = try ScriptedServer { url in
            [
                ScriptedStep(interims: [Self.announce(url)], bodyLimit: 5000, ending: .close),
                Self.head(offset: 5000, complete: false),
                ScriptedStep(respond: 409, fields: ["Upload-Offset": "6000", "Upload-Complete": "?0"]),
                Self.completed,
            ]
        }
        let outcome = try Self.run(scripted, fixture, file: path)
        #expect(outcome.result == .succeeded, "\(outcome)")
        #expect(Self.methods(scripted) == ["POST", "HEAD", "PATCH", "PATCH"])
        #expect(scripted.requests[3].head.fields["Upload-Offset"] == "6000")
        #expect(scripted.requests[3].body == Array(bytes[6000...]))
        #expect(outcome.resumeAttempts == 2)
    }

    @Test(arguments: [false, true])
    func resumeAttemptsAreBoundedWithExponentialBackoff(developerMode: Bool) throws {
        let fixture = try TransferFixture()
        let (path, _) = try fixture.file(Self.length)
        let scripted = try ScriptedServer { url in
            [ScriptedStep(interims: [Self.announce(url)], bodyLimit: 1000, ending: .close)]
                + Array(repeating: ScriptedStep(ending: .reset), count: 5)
        }
        let outcome = try Self.run(scripted, fixture, file: path) { $0.developerMode = developerMode }
        #expect(outcome.error?.isTransient == true)
        #expect(outcome.resumeAttempts == 5)
        #expect(Self.methods(scripted) == ["POST"] + Array(repeating: "HEAD", count: 5))
        let expected: [Duration] = (developerMode ? [1, 1, 1, 1, 1] : [1, 2, 4, 8, 16]).map { .seconds($0) }
        #expect(fixture.delays.all == expected)
        #expect(fixture.events.count { if case .resumeAttempt = $0 { true } else { false } } == 5)
    }

    @Test(arguments: [(413, TransferError.Code.badServerResponse), (401, .userAuthenticationRequired)])
    func anEarlyFinalResponseStopsTheSending(status: Int, code: TransferError.Code) throws {
        let fixture = try TransferFixture()
        let size = 16 << 20
        let (path, _) = try fixture.file(size)
        let scripted = try ScriptedServer(steps: [ScriptedStep(bodyLimit: 0, respond: status)])
        let outcome = try Self.run(scripted, fixture, file: path)
        #expect(outcome.error?.code == code)
        #expect(outcome.status == status)
        #expect(fixture.events.bytesSent < Int64(size))
        #expect(!fixture.events.all.contains(.finalising))
    }

    @Test func withoutA104AnInterruptionFailsWithATransientErrorAndNoResume() throws {
        let fixture = try TransferFixture()
        let (path, _) = try fixture.file(Self.length)
        let scripted = try ScriptedServer(steps: [ScriptedStep(bodyLimit: 1000, ending: .reset)])
        let outcome = try Self.run(scripted, fixture, file: path)
        #expect(outcome.error?.isTransient == true)
        #expect(outcome.resumeAttempts == 0 && fixture.delays.all.isEmpty)
        #expect(Self.methods(scripted) == ["POST"])
    }

    @Test func aMalformedFinalResponseIsABadServerResponse() throws {
        let fixture = try TransferFixture()
        let (path, _) = try fixture.file(Self.length)
        let scripted = try ScriptedServer { url in
            [ScriptedStep(interims: [Self.announce(url)], ending: .raw(Array("HTTP/1.1 2OO OK\r\n\r\n".utf8)))]
        }
        let outcome = try Self.run(scripted, fixture, file: path)
        #expect(outcome.error?.code == .badServerResponse)
        #expect(outcome.error?.detail.contains("malformed") == true)
        #expect(outcome.resumeAttempts == 0)
        #expect(Self.methods(scripted) == ["POST"])
    }

    @Test func thePreflightIsCachedPerEndpointAndTheConnectionKeptAlive() throws {
        let fixture = try TransferFixture()
        let (path, _) = try fixture.file(Self.length)
        let options = ScriptedStep(respond: 200, fields: ["Upload-Limit": "min-size=0, max-append-size=15000"])
        let scripted = try ScriptedServer { url in
            [
                options,
                ScriptedStep(
                    interims: [Self.announce(url)], respond: 201,
                    fields: ["Location": url + "/upload/abc", "Upload-Complete": "?0"]), Self.completed,
                ScriptedStep(
                    interims: [Self.announce(url, id: "def")], respond: 201,
                    fields: ["Location": url + "/upload/def", "Upload-Complete": "?0"]), Self.completed,
            ]
        }
        let cache = PreflightCache()
        let url = scripted.url + "/upload"
        for _ in 0..<2 {
            let outcome = try fixture.transfer(path, to: url, TransferFixture.configuration(Self.version), cache: cache)
                .run()
            #expect(outcome.result == .succeeded)
        }
        #expect(Self.methods(scripted) == ["OPTIONS", "POST", "PATCH", "POST", "PATCH"])
        #expect(scripted.requests[1].head.fields["Content-Length"] == "15000")
        // One connection per transfer: OPTIONS, POST and PATCH share the first.
        #expect(scripted.connectionCount == 2)
        #expect(cache.answer(for: url, version: Self.version) != nil)
    }

    @Test func anUnknownPreflightAnswerIsNotCachedAndTheCreationStillTriesResumably() throws {
        let fixture = try TransferFixture()
        let (path, _) = try fixture.file(1000)
        let scripted = try ScriptedServer { url in
            [
                ScriptedStep(respond: 404),
                ScriptedStep(interims: [Self.announce(url)], respond: 200, fields: ["Upload-Complete": "?1"]),
            ]
        }
        let cache = PreflightCache()
        let outcome = try fixture.transfer(
            path, to: scripted.url + "/upload", TransferFixture.configuration(Self.version), cache: cache
        ).run()
        #expect(outcome.result == .succeeded && outcome.resumable)
        #expect(fixture.events.all.first == .preflight(.unknown(status: 404)))
        #expect(scripted.requests[1].head.fields["Upload-Draft-Interop-Version"] == "8")
        #expect(cache.answer(for: scripted.url + "/upload", version: Self.version) == nil)
    }

    @Test func aSilentServerTimesOut() throws {
        let fixture = try TransferFixture()
        let (path, _) = try fixture.file(1000)
        let scripted = try ScriptedServer(steps: [ScriptedStep(ending: .stall)])
        let outcome = try Self.run(scripted, fixture, file: path) { $0.readTimeout = .milliseconds(200) }
        #expect(outcome.error?.code == .timedOut)
    }
}
