import HTTPWire
import ResumableUpload
import Testing

/// The progress policy (`UploadProtocolConfiguration`): a progress 104 every `progressInterval` bytes, at most
/// `progressLimit` per request, `progressSpacing` apart, on a manual clock.
extension UploadResourceStateMachineTests {
    /// The interop versions that send progress 104s (5 and later).
    static let progressVersions = InteropVersion.all.filter(\.sendsProgress)

    /// The offsets of the progress 104s among `actions`.
    static func progressOffsets(_ actions: [UploadAction]) -> [Int64] {
        actions.compactMap { action in
            guard case .sendInterim(let head) = action, head.status == 104 else { return nil }
            return head.fields["Upload-Offset"].flatMap { Int64($0) }
        }
    }

    /// Feeds `count` chunks of `size` bytes, the n-th at `time(n)`; returns the progress offsets with their times.
    static func feed(
        _ machine: inout UploadResourceStateMachine, chunks count: Int, of size: Int64,
        at time: (Int) -> Duration = { _ in .seconds(1000) }
    ) throws -> [(offset: Int64, at: Duration)] {
        var sent: [(offset: Int64, at: Duration)] = []
        for index in 0..<count {
            let now = time(index)
            let actions = try machine.bodyReceived(byteCount: size, now: now)
            sent += progressOffsets(actions).map { ($0, now) }
        }
        return sent
    }

    @Test(arguments: InteropVersion.all)
    func progress104sEveryIntervalFromFive(_ version: InteropVersion) throws {
        let configuration = UploadProtocolConfiguration(
            progressInterval: 100, progressLimit: nil, progressSpacing: .zero)
        var (machine, _) = try Self.start(version, complete: true, configuration: configuration)
        #expect(try machine.bodyReceived(byteCount: 60, now: .seconds(1000)) == [.write(count: 60)])
        let second = try machine.bodyReceived(byteCount: 60, now: .seconds(1000))
        let third = try machine.bodyReceived(byteCount: 60, now: .seconds(1000))
        if version.sendsProgress {
            let progress = UploadResponse.progress104(offset: 120, version: version)
            #expect(second == [.write(count: 60), .persist(offset: 120), .sendInterim(progress)])
            #expect(third == [.write(count: 60)])
        } else {
            #expect(second == [.write(count: 60)])
            #expect(third == [.write(count: 60)])
        }
    }

    /// Once a request has had `progressLimit` progress 104s it gets no more, however many bytes follow; the next
    /// request on the upload (an append) has a budget of its own.
    @Test(arguments: progressVersions)
    func theLimitEndsProgress104sOnARequestAndTheNextHasItsOwn(_ version: InteropVersion) throws {
        let configuration = UploadProtocolConfiguration(progressInterval: 10, progressLimit: 2, progressSpacing: .zero)
        var (machine, _) = try Self.start(version, complete: false, configuration: configuration)
        #expect(try Self.feed(&machine, chunks: 10, of: 10).map(\.offset) == [10, 20])
        _ = try machine.bodyEnded(now: .seconds(1000))
        #expect(
            machine.startAppend(AppendRequest(version: version, offset: 100, complete: false), now: .seconds(1000))
                == [])
        #expect(try Self.feed(&machine, chunks: 10, of: 10).map(\.offset) == [110, 120])
        #expect(machine.offset == 200)
    }

    /// A limit of 0 sends no progress 104 at all; so does an interval of 0, whatever the limit and spacing.
    @Test(arguments: progressVersions)
    func aZeroIntervalOrLimitSendsNone(_ version: InteropVersion) throws {
        let rules = [
            UploadProtocolConfiguration(progressInterval: 0, progressLimit: nil, progressSpacing: .zero),
            UploadProtocolConfiguration(progressInterval: 0),
            UploadProtocolConfiguration(progressInterval: 1, progressLimit: 0, progressSpacing: .zero),
        ]
        for configuration in rules {
            var (machine, _) = try Self.start(version, complete: true, configuration: configuration)
            let sent = try Self.feed(&machine, chunks: 50, of: 1 << 20) { .seconds(1000 + $0) }
            #expect(sent.isEmpty, "\(configuration)")
            #expect(machine.offset == 50 << 20)
        }
    }

    /// The spacing holds a due 104 back until it has passed since the request's start (the creation's 104), then
    /// the next bytes carry it, whatever their count; the one after waits for the spacing again.
    @Test(arguments: progressVersions)
    func theSpacingHoldsA104BackUntilItsTimePassed(_ version: InteropVersion) throws {
        let configuration = UploadProtocolConfiguration(
            progressInterval: 10, progressLimit: nil, progressSpacing: .seconds(1))
        var (machine, _) = try Self.start(version, complete: true, configuration: configuration)
        let start: Duration = .seconds(1000)
        func bytes(_ count: Int64, after elapsed: Duration) throws -> [Int64] {
            Self.progressOffsets(try machine.bodyReceived(byteCount: count, now: start + elapsed))
        }
        #expect(try bytes(50, after: .zero) == [])
        #expect(try bytes(50, after: .milliseconds(999)) == [])
        #expect(try bytes(1, after: .seconds(1)) == [101])
        #expect(try bytes(50, after: .milliseconds(1500)) == [])
        #expect(try bytes(50, after: .milliseconds(1999)) == [])
        #expect(try bytes(1, after: .milliseconds(2001)) == [202])
        #expect(try bytes(5, after: .seconds(9)) == [], "fewer than progressInterval bytes since the last 104")
        #expect(try bytes(5, after: .seconds(9)) == [212])
    }

    /// The defaults, on a 16 MiB creation spread over 10 s of the manual clock in 64 KiB chunks: three progress
    /// 104s, at least 1 MiB and 1 s after the request's start and each other. With the creation's 104 that is four
    /// informational responses, five with a `100 Continue`: what Go's net/http before 1.24 accepts.
    @Test(arguments: progressVersions)
    func theDefaultsSendAtMostThreeASecondApart(_ version: InteropVersion) throws {
        var (machine, actions) = try Self.start(
            version, complete: true, contentLength: 16 << 20, configuration: UploadProtocolConfiguration())
        #expect(actions.count == 1)
        let chunks = 256
        let sent = try Self.feed(&machine, chunks: chunks, of: 64 << 10) { .seconds(1000) + .seconds(10) * $0 / chunks }
        #expect(sent.count == 3)
        var previous: (offset: Int64, at: Duration) = (0, .seconds(1000))
        for progress in sent {
            #expect(progress.offset - previous.offset >= 1 << 20)
            #expect(progress.at - previous.at >= .seconds(1))
            previous = progress
        }
        #expect(try machine.bodyEnded(now: .seconds(1010)).contains(.finalize(length: 16 << 20)))
    }
}
