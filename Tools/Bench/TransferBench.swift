import Glibc
import Synchronization
import UploadClient

/// `transfer`: one file through the reference client's transfer engine (`UploadTransfer`: OPTIONS preflight,
/// streaming creation, 104s), timed from before the preflight to the end of the final response, with the
/// process's peak RSS at the end (VmHWM: the client holds a chunk of the file at a time, never the file).
///
/// ```
/// squall server --store DIR                                                       # → http://127.0.0.1:P
/// squall-bench transfer --url http://127.0.0.1:P/upload --file /tmp/big.bin
///   # → transfer bytes= seconds= mbps= outcome=succeeded status=201 resumes=0 vmhwm_kib=
/// ```
/// `--url` is the creation URL (the one `curl --data-binary` would post to). Exits non-zero unless the transfer
/// succeeded.
enum TransferBench: BenchCommand {
    static let name = "transfer"
    static let usage = "--url CREATION_URL --file PATH [--interop N] [--chunk-size N]"
    static let summary =
        "one UploadTransfer of the file (interop N, default 8); prints transfer bytes= seconds= mbps= outcome= "
        + "status= resumes= vmhwm_kib="

    static func run(_ options: BenchOptions) throws {
        var configuration = TransferConfiguration()
        let version = options.string("interop", default: "8")
        // `.init` names ResumableUpload's InteropVersion, which squall-bench does not import itself.
        configuration.interopVersion = Int(version).flatMap { .init(rawValue: $0) }
        guard configuration.interopVersion != nil else {
            throw BenchError("--interop must be an interop version 3 to 8, not '\(version)'")
        }
        configuration.chunkSize = Int(try options.bytes("chunk-size", default: Int64(configuration.chunkSize)))
        let sent = SentBytes()
        let transfer = try UploadTransfer(
            file: try options.string("file"), to: try options.string("url"), configuration: configuration,
            observer: { event in
                if case .bytesSent(_, let count) = event { sent.add(count) }
            })
        let clock = ContinuousClock()
        let start = clock.now
        let outcome = transfer.run()
        let throughput = Throughput(bytes: sent.total, duration: clock.now - start)
        let verdict: String
        switch outcome.result {
        case .succeeded: verdict = "succeeded"
        case .cancelled: verdict = "cancelled"
        case .failed(let error): verdict = "failed:\(error.code)"
        }
        BenchMain.emit(
            throughput.line(name) + " outcome=\(verdict) status=\(outcome.status ?? 0)"
                + " resumes=\(outcome.resumeAttempts) vmhwm_kib=\(peakResidentKiB() ?? 0)")
        if let error = outcome.error { throw BenchError("the transfer failed: \(error)") }
    }

    /// The process's peak resident set size in KiB (`VmHWM:` in /proc/self/status), nil when unreadable.
    static func peakResidentKiB() -> Int? {
        let descriptor = open("/proc/self/status", O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        let line = String(decoding: bytes, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
        return line?.split(separator: " ").dropFirst().first.flatMap { Int($0) }
    }
}

/// The content bytes a transfer reported written, summed from its observer.
private final class SentBytes: Sendable {
    private let count = Mutex<Int64>(0)

    func add(_ bytes: Int) {
        count.withLock { $0 += Int64(bytes) }
    }

    var total: Int64 { count.withLock { $0 } }
}
