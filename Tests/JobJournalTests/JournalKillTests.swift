import Foundation
import Glibc
import JobJournal
import TestSupport
import Testing
import UploadJobs

/// kill -9 of a process that commits as fast as it can, at seeded moments, then reopen: every commit the child
/// reported is there, and the store is exactly the one after some commit of the child's deterministic script.
/// While the child runs, opening its journal from this process fails with `journalInUse`.
///
/// The child is this test binary re-run with `--filter JournalKillTests/childWriter` and the journal folder in
/// `SQUALL_JOURNAL_KILL_CHILD`; it prints `committed N` on stdout after commit N returns.
struct JournalKillTests {
    static let childVariable = "SQUALL_JOURNAL_KILL_CHILD"
    static let childFolder = ProcessInfo.processInfo.environment[childVariable]
    static let limits = JobStoreConfiguration(inFlightLimit: 4, retryLimit: 1)
    static let journalConfiguration = JobJournalConfiguration(compactionThreshold: 8 << 10)

    /// The child's next change block, a function of the store alone.
    static func step(_ block: inout JobChangeBlock) throws {
        if let job = block.fetch(.acknowledge).first {
            try block.acknowledge(job.localID)
        } else if let job = block.fetch(.process).first, job.state == .registered {
            try block.start(job.localID)
            try block.record(.bytesSent(ByteRange(offset: 0, length: 4_096)), job: job.localID)
        } else if let job = block.fetch(.process).first {
            try block.succeed(
                job.localID, status: 201, headers: [HeaderField("X-Server-Resource-Id", "r\(job.localID.number)")])
        } else {
            for index in 0..<3 {
                try block.createJob(assetID: "photo-\(index)", destination: JournalScript.destination)
            }
        }
    }

    /// The store after `count` commits of the script.
    static func expected(after count: UInt64) throws -> JobStore {
        var store = JobStore(configuration: limits)
        for sequence in 0..<count {
            try store.performChanges(at: JobTime(sequence + 1)) { try step(&$0) }
        }
        return store
    }

    @Test(.enabled(if: childFolder != nil))
    func childWriter() throws {
        let journal = try JobJournal(
            folder: Self.childFolder!, store: Self.limits, configuration: Self.journalConfiguration)
        for _ in 0..<200_000 {
            try journal.performChanges(at: JobTime(journal.sequence + 1)) { try Self.step(&$0) }
            let line = Array("committed \(journal.sequence)\n".utf8)
            guard line.withUnsafeBytes({ write(1, $0.baseAddress, $0.count) }) == line.count else { return }
        }
    }

    @Test(.enabled(if: childFolder == nil))
    func killNineLosesNoCommittedChange() throws {
        let folder = JournalTestFolder()
        defer { folder.remove() }
        var generator = SeededGenerator(seed: 9)
        var dropped = 0
        for round in 0..<4 {
            let target = Int.random(in: 50...400, using: &generator)
            let reported = try runChild(folder: folder.path, killAfter: target)
            #expect(reported >= UInt64(target), "round \(round)")
            let journal = try JobJournal(
                folder: folder.path, store: Self.limits, configuration: Self.journalConfiguration)
            #expect(journal.sequence >= reported, "round \(round): reported \(reported), recovered \(journal.sequence)")
            #expect(journal.store == (try Self.expected(after: journal.sequence)), "round \(round)")
            dropped += journal.recovery.droppedTail == nil ? 0 : 1
            journal.close()
        }
        print("kill -9 rounds: 4, torn tails dropped: \(dropped)")
    }

    /// Runs the child until it has reported `count` commits since it started, kills it with SIGKILL, and returns
    /// the last sequence it reported.
    private func runChild(folder: String, killAfter count: Int) throws -> UInt64 {
        let process = Process()
        process.executableURL = URL(
            fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        process.arguments = ["--testing-library", "swift-testing", "--filter", "JournalKillTests/childWriter"]
        process.environment = ProcessInfo.processInfo.environment.merging([Self.childVariable: folder]) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        var seen = 0
        var last: UInt64 = 0
        var pending: [UInt8] = []
        let deadline = ContinuousClock.now + .seconds(60)
        while seen < count {
            guard ContinuousClock.now < deadline else { throw JournalKillFailure("the child reported \(seen) commits") }
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw JournalKillFailure("the child exited after \(seen) commits") }
            pending += chunk
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                guard line.hasPrefix("committed "), let sequence = UInt64(line.dropFirst(10)) else { continue }
                last = sequence
                seen += 1
            }
        }
        let inUse = JournalTestFolder.code {
            _ = try JobJournal(folder: folder, store: Self.limits, configuration: Self.journalConfiguration)
        }
        #expect(inUse == .journalInUse, "the child holds the journal's lock")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        return last
    }
}

/// The kill test's child did not behave.
struct JournalKillFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
