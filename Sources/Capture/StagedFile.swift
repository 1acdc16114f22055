import CSystem
import Glibc

/// A file written front to back through an aligned staging buffer: whole blocks go to the file with direct I/O
/// (`O_DIRECT`, past the page cache) when the file system allows it, and the tail with an ordinary write when the
/// writer flushes. Not thread-safe: its owner serializes the calls.
///
/// ```
/// append ──copy──▶ [staging, aligned] ──whole blocks, once blockLimit are staged: O_DIRECT pwrite──▶ file
///                          └── flush(): what is not in the file yet, ordinary pwrite (page cache) ──▶ file
/// ```
/// Why: a capture writes two bytes per byte proxied, and on a virtual machine each fresh page-cache page costs the
/// kernel far more than the copy itself (measured on this project's 2-core VM: 2 GiB of new data through the page
/// cache took 1.5 to 4.8 s of system time, with `O_DIRECT` 0.25 s). A direct write of a block whose start an
/// earlier flush wrote rewrites those bytes with the same ones (the kernel writes back and drops the range's cached
/// pages first, so the file stays consistent). Where direct I/O is refused (tmpfs), and on a pipe or a device,
/// every write is an ordinary one and nothing is written twice.
final class StagedFile {
    /// The alignment direct I/O needs for the buffer, the file offset and the length (the largest logical block
    /// size of Linux block devices).
    static let alignment = 4096
    /// Staged bytes are written once at least this many are held: 1 MiB per direct write.
    static let blockLimit = 1 << 20
    static let capacity = 2 << 20

    /// The ordinary descriptor (the tail, and everything when `direct` is nil).
    private let descriptor: Int32
    /// The `O_DIRECT` descriptor, nil when the file system refused it or the file is not a regular file.
    private var direct: Int32?
    /// Whether the file takes positioned writes (a regular file); a pipe or a device is written in sequence.
    private let positioned: Bool
    private let staging: UnsafeMutableRawPointer
    /// The file offset of the staging buffer's first byte (a multiple of `alignment`).
    private var stagingOffset = 0
    /// Bytes staged.
    private var count = 0
    /// Staged bytes already in the file through an ordinary write.
    private var flushedCount = 0

    /// Writes through `descriptor`, open for writing on `path` at its start (its owner closes it), beginning with
    /// `head` (fewer than `alignment` bytes, such as a file header), staged like the rest.
    init(path: String, descriptor: Int32, head: [UInt8]) {
        precondition(head.count < Self.alignment)
        self.descriptor = descriptor
        var status = stat()
        positioned = fstat(descriptor, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
        let opened = positioned ? open(path, O_WRONLY | O_CLOEXEC | squall_o_direct()) : -1
        direct = opened >= 0 ? opened : nil
        staging = UnsafeMutableRawPointer.allocate(byteCount: Self.capacity, alignment: Self.alignment)
        head.withUnsafeBytes { staging.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        count = head.count
    }

    deinit {
        if let direct { Glibc.close(direct) }
        staging.deallocate()
    }

    /// Whether whole blocks bypass the page cache.
    var writesDirectly: Bool { direct != nil }

    /// Stages `bytes`, writing whole blocks as the buffer fills. Returns the errno of a failed write, else nil.
    func append(_ bytes: UnsafeRawBufferPointer) -> Int32? {
        var taken = 0
        while taken < bytes.count {
            let piece = min(bytes.count - taken, Self.capacity - count)
            (staging + count).copyMemory(from: bytes.baseAddress! + taken, byteCount: piece)
            count += piece
            taken += piece
            if count >= Self.blockLimit, let failure = writeBlocks() { return failure }
        }
        return nil
    }

    /// Writes the staged bytes not yet in the file with an ordinary write: the file is then whole up to here.
    func flush() -> Int32? {
        guard count > flushedCount else { return nil }
        if let failure = writeOrdinary(from: flushedCount, to: count) { return failure }
        flushedCount = count
        return nil
    }

    /// Writes the whole blocks staged (directly when possible) and keeps the rest at the buffer's start.
    private func writeBlocks() -> Int32? {
        let whole = count & ~(Self.alignment - 1)
        if let direct, let failure = Self.writeAll(direct, staging, whole, at: stagingOffset) {
            guard failure == EINVAL else { return failure }
            // The file system took O_DIRECT at open but not these writes: ordinary writes from now on.
            Glibc.close(direct)
            self.direct = nil
        }
        if direct == nil, whole > flushedCount, let failure = writeOrdinary(from: flushedCount, to: whole) {
            return failure
        }
        staging.copyMemory(from: staging + whole, byteCount: count - whole)
        count -= whole
        // A flush leaves less than `blockLimit` staged, and `whole` is at least that: nothing flushed is left.
        flushedCount = 0
        stagingOffset += whole
        return nil
    }

    /// Writes staged bytes `start..<end` through the ordinary descriptor.
    private func writeOrdinary(from start: Int, to end: Int) -> Int32? {
        Self.writeAll(descriptor, staging + start, end - start, at: positioned ? stagingOffset + start : nil)
    }

    /// Writes all `length` bytes, at `offset` (`pwrite`) or in sequence (`write`); the errno of a failure, else nil.
    private static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ length: Int, at offset: Int?)
        -> Int32?
    {
        var done = 0
        while done < length {
            let written =
                if let offset {
                    pwrite(descriptor, bytes + done, length - done, offset + done)
                } else {
                    write(descriptor, bytes + done, length - done)
                }
            if written < 0 {
                if errno == EINTR { continue }
                return errno
            }
            if written == 0 { return EIO }
            done += written
        }
        return nil
    }
}
