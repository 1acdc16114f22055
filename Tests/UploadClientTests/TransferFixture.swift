import Foundation
import HTTPWire
import ResumableUpload
import SquallNet
import Synchronization
import TLSKit
import TestSupport
import UploadClient
import UploadServer

/// Test pieces for transfers: seeded files in a temporary folder, reference servers, and recorders for events
/// and backoff delays.
final class TransferFixture {
    let folder: TLSFixtures.TemporaryDirectory
    let events = EventRecorder()
    let delays = DelayRecorder()

    init() throws {
        ProcessSetup.ignoreBrokenPipe()
        folder = try TLSFixtures.TemporaryDirectory()
    }

    /// Writes `count` seeded bytes to a file and returns its path and contents.
    func file(_ count: Int, seed: UInt64 = 7, name: String = "upload.bin") throws -> (String, [UInt8]) {
        var generator = SeededGenerator(seed: seed)
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { buffer in
            for start in stride(from: 0, to: count, by: 8) {
                withUnsafeBytes(of: generator.next()) { word in
                    buffer[start..<min(start + 8, count)].copyBytes(from: word.prefix(count - start))
                }
            }
        }
        let path = folder.file(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return (path, bytes)
    }

    /// A reference server storing in this fixture's folder.
    func server(
        _ uploadProtocol: UploadProtocolConfiguration = UploadProtocolConfiguration(),
        configure: (inout UploadServerConfiguration) -> Void = { _ in }
    ) throws -> UploadServer {
        var configuration = UploadServerConfiguration(
            storeDirectory: folder.file("store-\(UUID().uuidString)"), uploadProtocol: uploadProtocol)
        configure(&configuration)
        return try UploadServer(configuration: configuration)
    }

    /// A transfer of `path` to `url` recording events and backoff delays (which return at once).
    func transfer(
        _ path: String, to url: String, _ configuration: TransferConfiguration,
        cache: PreflightCache = PreflightCache()
    ) throws -> UploadTransfer {
        let delays = self.delays
        let events = self.events
        return try UploadTransfer(
            file: path, to: url, configuration: configuration, preflightCache: cache,
            sleeper: { delay in delays.record(delay) },
            observer: { event in events.record(event) })
    }

    /// Configuration for `version` with no real backoff, short timeouts and `fields`.
    static func configuration(
        _ version: InteropVersion?, appendSize: Int64? = nil, fields: HTTPFields = [:], ca: String? = nil
    ) -> TransferConfiguration {
        TransferConfiguration(
            headerFields: fields, interopVersion: version, appendSize: appendSize, connectTimeout: .seconds(10),
            readTimeout: .seconds(10), trustedCAFile: ca, chunkSize: 16 * 1024)
    }

    static func sha256(_ bytes: [UInt8]) -> String {
        MessageDigest.hex(of: bytes)
    }
}

/// Collects transfer events from the transfer's thread.
final class EventRecorder: Sendable {
    private let events = Mutex<[TransferEvent]>([])

    func record(_ event: TransferEvent) {
        events.withLock { $0.append(event) }
    }

    var all: [TransferEvent] { events.withLock { $0 } }

    /// The methods of the requests started, in order.
    var methods: [String] {
        all.compactMap { event in
            if case .requestStarted(let method, _, _) = event { return method }
            return nil
        }
    }

    /// The (method, offset, length) of each request started.
    var requests: [(String, Int64, Int64)] {
        all.compactMap { event in
            if case .requestStarted(let method, let offset, let length) = event { return (method, offset, length) }
            return nil
        }
    }

    /// Total content bytes reported sent.
    var bytesSent: Int64 {
        all.reduce(0) { total, event in
            if case .bytesSent(_, let count) = event { return total + Int64(count) }
            return total
        }
    }

    func count(where predicate: (TransferEvent) -> Bool) -> Int {
        all.filter(predicate).count
    }
}

/// Collects the backoff delays a transfer asked for (the injected sleeper returns at once).
final class DelayRecorder: Sendable {
    private let delays = Mutex<[Duration]>([])

    func record(_ delay: Duration) {
        delays.withLock { $0.append(delay) }
    }

    var all: [Duration] { delays.withLock { $0 } }
}
