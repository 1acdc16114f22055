import HTTPWire
import ResumableUpload
import TestSupport
import Testing

struct UploadResourceStateMachineTests {
    static let location = "https://example.com/upload/r1"

    static func start(
        _ version: InteropVersion, complete: Bool, contentLength: Int64? = nil, uploadLength: Int64? = nil,
        configuration: UploadProtocolConfiguration = UploadProtocolConfiguration(progressInterval: 0)
    ) throws -> (UploadResourceStateMachine, [UploadAction]) {
        let request = CreationRequest(
            version: version, complete: complete, contentLength: contentLength, uploadLength: uploadLength)
        return try UploadResourceStateMachine.create(
            id: "r1", location: location, request: request, configuration: configuration, now: .seconds(1000))
    }

    /// The final response among `actions`.
    static func sent(_ actions: [UploadAction]) -> UploadResponse? {
        for action in actions {
            if case .send(let response) = action { return response }
            if case .reject(_, let response) = action { return response }
        }
        return nil
    }

    static func rejection(_ actions: [UploadAction]) -> UploadProtocolError.Code? {
        for action in actions { if case .reject(let error, _) = action { return error.code } }
        return nil
    }

    @Test(arguments: InteropVersion.all)
    func completeCreationYieldsTheResourceID(_ version: InteropVersion) throws {
        var (machine, actions) = try Self.start(version, complete: true, contentLength: 10)
        #expect(
            actions == [
                .sendInterim(
                    UploadResponse.interim104(location: Self.location, version: version, limits: UploadLimits()))
            ])
        #expect(try machine.bodyReceived(byteCount: 6, now: .seconds(1000)) == [.write(count: 6)])
        #expect(try machine.bodyReceived(byteCount: 4, now: .seconds(1000)) == [.write(count: 4)])
        let end = try machine.bodyEnded(now: .seconds(1000))
        let final = UploadResponse.creationFinal(
            version: version, location: Self.location, offset: 10, complete: true, limits: UploadLimits(),
            resourceID: "r1")
        #expect(end == [.persist(offset: 10), .finalize(length: 10), .send(final)])
        #expect(final.head.fields["x-server-resource-id"] == "r1")
        #expect(machine.isComplete)
        #expect(machine.length == 10)
    }

    @Test(arguments: InteropVersion.all)
    func interruptedBodyKeepsItsBytesAndResumes(_ version: InteropVersion) throws {
        var (machine, _) = try Self.start(version, complete: true, contentLength: 10)
        _ = try machine.bodyReceived(byteCount: 3, now: .seconds(1000))
        _ = try machine.bodyReceived(byteCount: 1, now: .seconds(1000))
        #expect(try machine.bodyInterrupted() == [.persist(offset: 4)])
        #expect(!machine.isComplete)
        let head = machine.offsetRequested(version: version, now: .seconds(1001))
        #expect(Self.sent(head)?.head.fields["Upload-Offset"] == "4")
        #expect(Self.sent(head)?.head.fields[version.completionFieldName] == version.completionValue(complete: false))

        let append = AppendRequest(version: version, offset: 4, complete: true, contentLength: 6)
        #expect(machine.startAppend(append, now: .seconds(1002)) == [])
        #expect(try machine.bodyReceived(byteCount: 6, now: .seconds(1002)) == [.write(count: 6)])
        let end = try machine.bodyEnded(now: .seconds(1002))
        #expect(end.prefix(2) == [.persist(offset: 10), .finalize(length: 10)])
        #expect(Self.sent(end)?.head.fields["x-server-resource-id"] == "r1")
        #expect(Self.sent(end)?.head.status == (version.rawValue <= 6 ? 201 : 200))
    }

    @Test(arguments: InteropVersion.all)
    func partialCreationThenAppends(_ version: InteropVersion) throws {
        var (machine, _) = try Self.start(version, complete: false, contentLength: 0)
        let end = try machine.bodyEnded(now: .seconds(1000))
        #expect(end.first == .persist(offset: 0))
        #expect(Self.sent(end)?.head.status == 201)
        #expect(Self.sent(end)?.head.fields["Location"] == Self.location)
        #expect(
            machine.startAppend(AppendRequest(version: version, offset: 0, complete: false), now: .seconds(1000)) == [])
        _ = try machine.bodyReceived(byteCount: 5, now: .seconds(1000))
        let partial = try machine.bodyEnded(now: .seconds(1000))
        #expect(Self.sent(partial)?.head.status == (version.rawValue <= 6 ? 201 : 204))
        #expect(!partial.contains(.finalize(length: 5)))
        #expect(machine.offset == 5)
    }

    @Test(arguments: InteropVersion.all)
    func offsetMismatchIs409WithTheCorrectOffset(_ version: InteropVersion) throws {
        var (machine, _) = try Self.start(version, complete: false)
        _ = try machine.bodyReceived(byteCount: 7, now: .seconds(1000))
        _ = try machine.bodyEnded(now: .seconds(1000))
        let actions = machine.startAppend(
            AppendRequest(version: version, offset: 3, complete: true, contentLength: 4), now: .seconds(1000))
        #expect(Self.rejection(actions) == .mismatchingOffset)
        #expect(actions.last == .closeConnection)
        let response = try #require(Self.sent(actions))
        #expect(response.head.status == 409)
        #expect(response.head.fields["Upload-Offset"] == "7")
        #expect(response.body == UploadProblem.mismatchingOffset(expected: 7, provided: 3).json)
        #expect(machine.offset == 7)
        #expect(!machine.isReceiving)
    }

    @Test(arguments: InteropVersion.all)
    func appendToCompletedUploadIsRejected(_ version: InteropVersion) throws {
        var (machine, _) = try Self.start(version, complete: true, contentLength: 2)
        _ = try machine.bodyReceived(byteCount: 2, now: .seconds(1000))
        _ = try machine.bodyEnded(now: .seconds(1000))
        let actions = machine.startAppend(
            AppendRequest(version: version, offset: 2, complete: true, contentLength: 0), now: .seconds(1000))
        #expect(Self.rejection(actions) == .completedUpload)
        #expect(Self.sent(actions)?.head.status == (version.rawValue >= 8 ? 410 : 400))
        #expect(!actions.contains(.closeConnection))
        #expect(machine.offset == 2)
    }

    @Test(arguments: InteropVersion.all)
    func lengthsMustAgree(_ version: InteropVersion) throws {
        var (machine, _) = try Self.start(version, complete: false, uploadLength: 10)
        _ = try machine.bodyEnded(now: .seconds(1000))
        let tooLong = AppendRequest(version: version, offset: 0, complete: true, contentLength: 12)
        #expect(Self.rejection(machine.startAppend(tooLong, now: .seconds(1000))) == .inconsistentLength)
        let other = AppendRequest(version: version, offset: 0, complete: false, contentLength: 2, uploadLength: 11)
        #expect(Self.rejection(machine.startAppend(other, now: .seconds(1000))) == .inconsistentLength)
        let short = AppendRequest(version: version, offset: 0, complete: true)
        #expect(machine.startAppend(short, now: .seconds(1000)) == [])
        _ = try machine.bodyReceived(byteCount: 9, now: .seconds(1000))
        let end = try machine.bodyEnded(now: .seconds(1000))
        #expect(Self.rejection(end) == .inconsistentLength)
        #expect(Self.sent(end)?.head.status == 400)
        #expect(!machine.isComplete)
        #expect(machine.offset == 9)
    }

    @Test(arguments: InteropVersion.all)
    func bytesPastTheKnownLengthAreCut(_ version: InteropVersion) throws {
        var (machine, _) = try Self.start(version, complete: false, uploadLength: 5)
        let actions = try machine.bodyReceived(byteCount: 8, now: .seconds(1000))
        #expect(actions.first == .write(count: 5))
        #expect(Self.rejection(actions) == .inconsistentLength)
        #expect(machine.offset == 5)
        // From interop 9 (-12 §4.4.2) the resource is invalidated: its data discarded, later requests get 404; before,
        // it stays (the control).
        if version.invalidatesOnLengthOverrun {
            #expect(Array(actions.suffix(2)) == [.closeConnection, .discard])
            #expect(machine.isCancelled)
            #expect(Self.rejection(machine.offsetRequested(version: version, now: .seconds(1001))) == .unknownUpload)
        } else {
            #expect(actions.last == .closeConnection)
            #expect(!machine.isCancelled)
        }
    }

    @Test(arguments: InteropVersion.all)
    func declaredSizeOverMaxSizeIs413WithoutAResource(_ version: InteropVersion) throws {
        let configuration = UploadProtocolConfiguration(limits: UploadLimits(maxSize: 100))
        let error = #expect(throws: UploadProtocolError.self) {
            try Self.start(version, complete: true, contentLength: 101, configuration: configuration)
        }
        #expect(error?.code == .uploadTooLarge)
        #expect(error?.status == 413)
        #expect(throws: Never.self) {
            try Self.start(version, complete: true, contentLength: 100, configuration: configuration)
        }
    }

    @Test(arguments: InteropVersion.all)
    func maxSizeOnBytesRead(_ version: InteropVersion) throws {
        let limits = UploadLimits(maxSize: 10)
        var (machine, _) = try Self.start(
            version, complete: true, configuration: UploadProtocolConfiguration(limits: limits, progressInterval: 0))
        _ = try machine.bodyReceived(byteCount: 8, now: .seconds(1000))
        let actions = try machine.bodyReceived(byteCount: 8, now: .seconds(1000))
        #expect(actions.first == .write(count: 2))
        #expect(actions[1] == .persist(offset: 10))
        #expect(Self.rejection(actions) == .uploadTooLarge)
        #expect(Self.sent(actions)?.head.status == 413)
        #expect(Self.sent(actions)?.head.fields["Upload-Limit"] == limits.field(for: version))
        #expect(!machine.isReceiving)
    }

    @Test(arguments: InteropVersion.all)
    func maxAppendSizeCountsBytesReadNotContentLength(_ version: InteropVersion) throws {
        let configuration = UploadProtocolConfiguration(limits: UploadLimits(maxAppendSize: 20), progressInterval: 0)
        var (machine, _) = try Self.start(version, complete: false, contentLength: 20, configuration: configuration)
        _ = try machine.bodyReceived(byteCount: 15, now: .seconds(1000))
        let actions = try machine.bodyReceived(byteCount: 15, now: .seconds(1000))
        #expect(actions.first == .write(count: 5))
        #expect(Self.rejection(actions) == .appendTooLarge)
        #expect(machine.offset == 20)
        let declared = AppendRequest(version: version, offset: 20, complete: false, contentLength: 21)
        #expect(Self.rejection(machine.startAppend(declared, now: .seconds(1000))) == .appendTooLarge)
        #expect(
            machine.startAppend(AppendRequest(version: version, offset: 20, complete: true), now: .seconds(1000)) == [])
        #expect(try machine.bodyReceived(byteCount: 20, now: .seconds(1000)) == [.write(count: 20)])
        #expect(Self.rejection(try machine.bodyReceived(byteCount: 1, now: .seconds(1000))) == .appendTooLarge)
        #expect(machine.offset == 40)
    }

    @Test func minAppendSizeSparesCompletingAndEmptyRequests() throws {
        let version = try #require(InteropVersion(rawValue: 8))
        let configuration = UploadProtocolConfiguration(limits: UploadLimits(minAppendSize: 10))
        #expect(throws: Never.self) {
            try Self.start(version, complete: false, contentLength: 0, configuration: configuration)
        }
        #expect(throws: Never.self) {
            try Self.start(version, complete: true, contentLength: 3, configuration: configuration)
        }
        let error = #expect(throws: UploadProtocolError.self) {
            try Self.start(version, complete: false, contentLength: 3, configuration: configuration)
        }
        #expect(error?.code == .appendTooSmall)
    }

    /// From interop 9 an empty append that does not complete is below `min-append-size` (only an empty creation is
    /// spared, -12 §4.1.4); at 8, the control, it is spared.
    @Test(arguments: [8, 9, 10])
    func anEmptyIntermediateAppendIsBelowMinAppendSizeFrom9(raw: Int) throws {
        let version = try #require(InteropVersion(rawValue: raw))
        let configuration = UploadProtocolConfiguration(limits: UploadLimits(minAppendSize: 10))
        var (machine, _) = try Self.start(version, complete: false, contentLength: 0, configuration: configuration)
        _ = try machine.bodyEnded(now: .seconds(1000))
        let empty = AppendRequest(version: version, offset: 0, complete: false, contentLength: 0)
        let rejection = Self.rejection(machine.startAppend(empty, now: .seconds(1000)))
        #expect(rejection == (raw >= 9 ? .appendTooSmall : nil))
    }

    @Test(arguments: InteropVersion.all)
    func cancelThenEverythingIs404(_ version: InteropVersion) throws {
        var (machine, _) = try Self.start(version, complete: false)
        _ = try machine.bodyReceived(byteCount: 3, now: .seconds(1000))
        let cancel = machine.cancel(version: version, now: .seconds(1001))
        #expect(
            cancel == [
                .persist(offset: 3), .abortActiveRequest, .discard, .send(UploadResponse.cancelled(version: version)),
            ])
        #expect(machine.isCancelled)
        #expect(Self.sent(machine.offsetRequested(version: version, now: .seconds(1002)))?.head.status == 404)
        let append = machine.startAppend(
            AppendRequest(version: version, offset: 3, complete: true), now: .seconds(1002))
        #expect(Self.rejection(append) == .unknownUpload)
        #expect(Self.sent(machine.cancel(version: version, now: .seconds(1002)))?.head.status == 404)
    }

    @Test func headAbortsARunningRequestAndItsOffsetIsAccepted() throws {
        let version = try #require(InteropVersion(rawValue: 6))
        var (machine, _) = try Self.start(version, complete: true, contentLength: 100)
        _ = try machine.bodyReceived(byteCount: 40, now: .seconds(1000))
        let head = machine.offsetRequested(version: version, now: .seconds(1000))
        #expect(head.prefix(2) == [.persist(offset: 40), .abortActiveRequest])
        #expect(Self.sent(head)?.head.fields["Upload-Length"] == "100")
        #expect(
            machine.startAppend(
                AppendRequest(version: version, offset: 40, complete: true, contentLength: 60), now: .seconds(1000))
                == [])
    }

    @Test func maxAgeCountsDownAndExpiryRemovesTheUpload() throws {
        let version = try #require(InteropVersion(rawValue: 8))
        let configuration = UploadProtocolConfiguration(limits: UploadLimits(maxAge: 60))
        var (machine, actions) = try Self.start(version, complete: false, configuration: configuration)
        guard case .sendInterim(let interim) = actions.first else { throw ExpectationFailed() }
        #expect(interim.fields["Upload-Limit"] == "min-size=0, max-age=60")
        _ = try machine.bodyEnded(now: .seconds(1000))
        #expect(
            Self.sent(machine.offsetRequested(version: version, now: .seconds(1045)))?.head.fields["Upload-Limit"]
                == "min-size=0, max-age=15")
        let expired = machine.offsetRequested(version: version, now: .seconds(1060))
        #expect(expired.first == .discard)
        #expect(Self.sent(expired)?.head.status == 404)
    }

    @Test func bodyEventsWithoutARequestAreIllegal() throws {
        let version = try #require(InteropVersion(rawValue: 8))
        var (machine, _) = try Self.start(version, complete: false)
        _ = try machine.bodyEnded(now: .seconds(1000))
        let received = #expect(throws: UploadStateError.self) {
            try machine.bodyReceived(byteCount: 1, now: .seconds(1000))
        }
        #expect(received?.code == .noActiveRequest)
        #expect(throws: UploadStateError.self) { try machine.bodyEnded(now: .seconds(1000)) }
        #expect(throws: UploadStateError.self) { try machine.bodyInterrupted() }
    }

    /// Applies `actions` for `chunk` to `stored`: each `.write(count:)` keeps the chunk's first `count` bytes.
    static func apply(_ actions: [UploadAction], chunk: [UInt8], to stored: inout [UInt8]) {
        for action in actions { if case .write(let count) = action { stored += chunk.prefix(Int(count)) } }
    }

    /// Conformance case 19: a body cut after any chunk of any splitting keeps exactly the bytes received, and
    /// resuming at the reported offset rebuilds the upload byte for byte.
    @Test(arguments: [InteropVersion(rawValue: 3)!, InteropVersion(rawValue: 8)!])
    func interruptionAtAnySplitResumesByteExact(_ version: InteropVersion) throws {
        let body = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let configuration = UploadProtocolConfiguration(progressInterval: 64)
        for (index, chunks) in ByteSplits.randomSplittings(body, count: 50).enumerated() {
            var (machine, _) = try Self.start(version, complete: true, contentLength: 300, configuration: configuration)
            var stored: [UInt8] = []
            for chunk in chunks.prefix(index % chunks.count) {
                Self.apply(
                    try machine.bodyReceived(byteCount: Int64(chunk.count), now: .seconds(1000)), chunk: chunk,
                    to: &stored)
            }
            _ = try machine.bodyInterrupted()
            #expect(machine.offset == Int64(stored.count))
            #expect(stored == Array(body.prefix(stored.count)))
            let rest = Array(body[stored.count...])
            let append = AppendRequest(
                version: version, offset: machine.offset, complete: true, contentLength: Int64(rest.count))
            #expect(machine.startAppend(append, now: .seconds(1000)) == [])
            for chunk in ByteSplits.random(rest, seed: UInt64(index)) {
                Self.apply(
                    try machine.bodyReceived(byteCount: Int64(chunk.count), now: .seconds(1000)), chunk: chunk,
                    to: &stored)
            }
            #expect(try machine.bodyEnded(now: .seconds(1000)).contains(.finalize(length: 300)))
            #expect(stored == body)
        }
    }

    @Test(arguments: InteropVersion.all)
    func aRestoredUploadResumesAtItsOffset(_ version: InteropVersion) throws {
        var machine = try #require(
            UploadResourceStateMachine.restore(
                id: "r1", location: Self.location, offset: 40, length: 100, complete: false, createdAt: .seconds(1000),
                configuration: UploadProtocolConfiguration()))
        let head = try #require(Self.sent(machine.offsetRequested(version: version, now: .seconds(1000))))
        #expect(head.head.fields["Upload-Offset"] == "40")
        #expect(head.head.fields[version.completionFieldName] == version.completionValue(complete: false))

        let wrong = AppendRequest(version: version, offset: 0, complete: true, contentLength: 100)
        #expect(Self.rejection(machine.startAppend(wrong, now: .seconds(1000))) == .mismatchingOffset)
        let append = AppendRequest(version: version, offset: 40, complete: true, contentLength: 60)
        #expect(machine.startAppend(append, now: .seconds(1000)) == [])
        _ = try machine.bodyReceived(byteCount: 60, now: .seconds(1000))
        #expect(try machine.bodyEnded(now: .seconds(1000)).contains(.finalize(length: 100)))
        #expect(machine.isComplete)
    }

    @Test func aRestoredCompleteUploadTakesNoMoreAndMaxAgeCountsFromCreation() throws {
        let rules = UploadProtocolConfiguration(limits: UploadLimits(maxAge: 60))
        let version = InteropVersion(rawValue: 8)!
        var complete = try #require(
            UploadResourceStateMachine.restore(
                id: "r1", location: Self.location, offset: 5, length: nil, complete: true, createdAt: .seconds(1000),
                configuration: rules))
        #expect(complete.length == 5)
        let append = AppendRequest(version: version, offset: 5, complete: true, contentLength: 1)
        #expect(Self.rejection(complete.startAppend(append, now: .seconds(1010))) == .completedUpload)

        var open = try #require(
            UploadResourceStateMachine.restore(
                id: "r2", location: Self.location, offset: 5, length: nil, complete: false, createdAt: .seconds(1000),
                configuration: rules))
        #expect(open.limits(now: .seconds(1050)).maxAge == 10)
        #expect(Self.rejection(open.offsetRequested(version: version, now: .seconds(1060))) == .unknownUpload)
    }

    @Test(arguments: [(-1, nil, false), (50, 40, false), (40, 50, true)] as [(Int64, Int64?, Bool)])
    func contradictoryFactsAreNotRestored(offset: Int64, length: Int64?, complete: Bool) {
        #expect(
            UploadResourceStateMachine.restore(
                id: "r1", location: Self.location, offset: offset, length: length, complete: complete,
                createdAt: .seconds(1000), configuration: UploadProtocolConfiguration()) == nil)
    }

    struct ExpectationFailed: Error {}
}
