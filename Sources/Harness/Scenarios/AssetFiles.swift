import Foundation
import Glibc
import Scenario
import SquallCore
import SquallNet
import TLSKit

/// The scenario's assets as files: contents derived from the scenario's seed and each asset's name, written in
/// 64 KiB pieces (never a whole file in memory), with their SHA-256. Nothing is written when the folder's file
/// system has not the room for it, and a stop ends the writing between two pieces.
enum AssetFiles {
    /// Writes every asset of `specs` into `folder` and returns their digests, in order; refuses before writing
    /// anything when the folder has less free space than the assets need.
    static func write(
        _ specs: [AssetSpec], seed: UInt64, into folder: String, stop: ProcessStop? = nil
    ) throws -> [AssetDigest] {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try ensureSpace(specs.bytes, in: folder)
        var digests: [AssetDigest] = []
        for spec in specs {
            for name in spec.names {
                digests.append(try write(name: name, size: spec.size, seed: seed, into: folder, stop: stop))
            }
        }
        return digests
    }

    /// Throws, naming `folder`, the bytes needed and the bytes available (`statvfs`: the blocks an unprivileged
    /// process may still use), when the folder's file system cannot take `needed` more bytes.
    static func ensureSpace(_ needed: Int64, in folder: String, for what: String = "the assets") throws {
        var status = statvfs()
        guard statvfs(folder, &status) == 0 else {
            throw HarnessError("cannot read the free space of \(folder): \(String(cString: strerror(errno)))")
        }
        let (available, overflow) = Int64(clamping: status.f_bavail).multipliedReportingOverflow(
            by: Int64(clamping: status.f_frsize))
        guard !overflow, needed > available else { return }
        throw HarnessError(
            "not enough free space in \(folder) for \(what): \(ByteSize.description(needed)) needed, \(ByteSize.description(available)) available; "
                + "nothing was written")
    }

    private static func write(
        name: String, size: Int64, seed: UInt64, into folder: String, stop: ProcessStop?
    ) throws -> AssetDigest {
        let path = folder + "/" + name
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw HarnessError("cannot create the asset file \(path)")
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        var generator = SeededGenerator(seed: seed ^ fnv1a(name))
        let digest = MessageDigest(.sha256)
        var left = size
        var piece = [UInt8](repeating: 0, count: 64 * 1024)
        while left > 0 {
            if let signal = stop?.signal { throw HarnessError("stopped by \(signal.name) while writing the assets") }
            let count = Int(min(left, Int64(piece.count)))
            piece.withUnsafeMutableBytes { bytes in
                var index = 0
                while index < count {
                    var word = generator.next()
                    withUnsafeBytes(of: &word) { wordBytes in
                        for byte in wordBytes where index < count {
                            bytes[index] = byte
                            index += 1
                        }
                    }
                }
            }
            let chunk = piece[0..<count]
            digest.update(chunk)
            try handle.write(contentsOf: chunk)
            left -= Int64(count)
        }
        return AssetDigest(name: name, assetID: path, size: size, sha256: MessageDigest.hexString(digest.finalize()))
    }

    private static func fnv1a(_ text: String) -> UInt64 {
        text.utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01b3 }
    }
}
