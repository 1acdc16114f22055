import Foundation
import Scenario
import SquallCore
import SquallNet
import Testing

@testable import Harness

/// The assets on disk: room checked before the first byte, a stop between two pieces.
struct AssetFilesTests {
    /// An exabyte is more than any test machine's disk: refused, naming the folder, the bytes needed and
    /// available, before the first file is made. (The stop, asked for beforehand, bounds the writing should the
    /// check ever let it through: the test then fails on "stopped" instead of filling the disk.)
    @Test func assetsTheFolderCannotHoldAreRefusedBeforeAnythingIsWritten() throws {
        let folder = NSTemporaryDirectory() + "squall-assets-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let stop = ProcessStop(command: "test")
        stop.request(.interrupt)
        let specs = [AssetSpec(name: "small", size: 10), AssetSpec(name: "huge", size: 1 << 60)]
        let error = try #require(throws: HarnessError.self) {
            try AssetFiles.write(specs, seed: 1, into: folder, stop: stop)
        }
        #expect(error.description.hasPrefix("not enough free space in \(folder) for the assets: "), "\(error)")
        #expect(error.description.contains("1152921504606846986 bytes (about 1048576.0TiB) needed, "))
        #expect(error.description.hasSuffix(" available; nothing was written"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
        // What fits is written.
        let digests = try AssetFiles.write(Array(specs.prefix(1)), seed: 1, into: folder)
        #expect(digests.map(\.size) == [10])
    }

    /// The runner checks the whole scenario (assets an event adds, and the reference server's copies) before it
    /// makes the CA or writes an asset: the scenario fails with that error and its bundle holds neither. (The
    /// event never plays in the scenario's second, so a runner that did not check would write nothing large.)
    @Test func aScenarioTheDiskCannotHoldFailsBeforeItsCAOrAssetsAreWritten() throws {
        let out = NSTemporaryDirectory() + "squall-assets-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: out) }
        var scenario = Scenario(
            name: "too-big", description: "d", timeout: .seconds(1), assets: [AssetSpec(name: "a", size: 1)],
            expect: [.jobs(state: "succeeded", .all)])
        scenario.events = [
            ScenarioEvent(
                action: .addAssets(AssetSpec(name: "late", size: 1 << 40, count: 1000)), trigger: .time(.seconds(3600)))
        ]
        let result = ScenarioRunner.run(scenario, options: ScenarioRunOptions(keepFolder: out))
        let error = try #require(result.error)
        #expect(error.hasPrefix("not enough free space in \(out)/too-big for the scenario's assets and the server's "))
        #expect(error.contains("2199023255552002 bytes"), "\(error)")
        let left = try FileManager.default.contentsOfDirectory(atPath: out + "/too-big")
        #expect(!left.contains("ca") && !left.contains("assets"), "\(left)")
    }

    /// A stop ends the writing between two pieces of 64 KiB.
    @Test func aStopEndsTheWriting() throws {
        let folder = NSTemporaryDirectory() + "squall-assets-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let stop = ProcessStop(command: "test")
        stop.request(.interrupt)
        let error = try #require(throws: HarnessError.self) {
            try AssetFiles.write([AssetSpec(name: "a", size: 1 << 20)], seed: 1, into: folder, stop: stop)
        }
        #expect(error.description == "stopped by SIGINT while writing the assets")
        let written = try FileManager.default.attributesOfItem(atPath: folder + "/a")[.size] as? Int
        #expect(written == 0)
    }
}
