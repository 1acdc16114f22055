import Foundation
import Synchronization
import TestSupport
import Testing
import UploadClient
import UploadJobs

/// How the system schedules the extension: the runtime limit, backoff between idle invocations, developer mode,
/// and giving up on an extension that makes no progress.
struct UploadSystemSchedulerTests {
    /// An extension whose invocations follow a script: each returns the next result; `blockUntilTerminated`
    /// invocations wait for `willTerminate` first.
    final class ScriptedExtension: UploadExtension, @unchecked Sendable {
        enum Step {
            case result(ProcessJobsResult)
            case blockUntilTerminated
        }

        private let lock = NSLock()
        private var steps: [Step]
        private let terminated = DispatchSemaphore(value: 0)
        private(set) var invocations = 0
        private(set) var terminations = 0

        init(_ steps: [Step]) {
            self.steps = steps
        }

        func processJobs(_ context: ExtensionContext) -> ProcessJobsResult {
            let step: Step = lock.withLock {
                invocations += 1
                return steps.isEmpty ? .result(.processing) : steps.removeFirst()
            }
            switch step {
            case .result(let result):
                return result
            case .blockUntilTerminated:
                terminated.wait()
                return .processing
            }
        }

        func willTerminate() {
            lock.withLock { terminations += 1 }
            terminated.signal()
        }
    }

    static func system(
        _ handler: ScriptedExtension, _ configuration: UploadSystemConfiguration, delays: DelayRecorder
    ) throws -> (UploadSystem, TLSFixtures.TemporaryDirectory) {
        let folder = try TLSFixtures.TemporaryDirectory()
        let system = try UploadSystem(
            journalFolder: folder.file("journal"), configuration: configuration, extension: handler,
            sleeper: { delays.record($0) })
        return (system, folder)
    }

    @Test func anInvocationPastItsRuntimeLimitIsToldToTerminate() throws {
        let handler = ScriptedExtension([.blockUntilTerminated, .result(.completed)])
        let delays = DelayRecorder()
        let (system, folder) = try Self.system(
            handler, UploadSystemConfiguration(invocationRuntimeLimit: .milliseconds(50)), delays: delays)
        defer { withExtendedLifetime(folder) { system.close() } }

        let summary = try system.run()

        #expect(summary.lastResult == .completed)
        #expect(summary.invocations == 2)
        #expect(handler.terminations == 1)
    }

    @Test func idleInvocationsBackOffThenTheSystemGivesUp() throws {
        let handler = ScriptedExtension([])
        let delays = DelayRecorder()
        let configuration = UploadSystemConfiguration(
            invocationBackoff: .seconds(1), invocationBackoffLimit: .seconds(4), idleInvocationLimit: 5)
        let (system, folder) = try Self.system(handler, configuration, delays: delays)
        defer { withExtendedLifetime(folder) { system.close() } }

        let summary = try system.run()

        #expect(summary.stoppedEarly == "the extension made no progress in 5 invocations")
        #expect(handler.invocations == 5)
        #expect(delays.all == [.seconds(1), .seconds(2), .seconds(4), .seconds(4)])
    }

    @Test func developerModeNeverBacksOff() throws {
        let handler = ScriptedExtension([.result(.processing), .result(.processing), .result(.completed)])
        let delays = DelayRecorder()
        let (system, folder) = try Self.system(
            handler, UploadSystemConfiguration(developerMode: true), delays: delays)
        defer { withExtendedLifetime(folder) { system.close() } }

        #expect(try system.run().lastResult == .completed)
        #expect(handler.invocations == 3)
        #expect(delays.all.isEmpty)
        #expect(handler.terminations == 0)
    }

    @Test func terminateStopsTheRunAndTellsTheExtension() throws {
        let handler = ScriptedExtension([.blockUntilTerminated])
        let delays = DelayRecorder()
        let (system, folder) = try Self.system(
            handler, UploadSystemConfiguration(developerMode: true), delays: delays)
        defer { withExtendedLifetime(folder) { system.close() } }
        let started = DispatchSemaphore(value: 0)
        let thread = Thread {
            started.signal()
            system.terminate()
        }
        thread.start()
        started.wait()

        let summary = try system.run()

        #expect(summary.stoppedEarly == "terminated")
        #expect(handler.terminations >= 1)
    }
}
