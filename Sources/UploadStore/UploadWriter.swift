import TLSKit

/// The single writer of one upload's data, from `FileUploadStore.beginAppend`.
///
/// Bytes are streamed in with `write` and promised to clients only after `sync` (or `finish`). Once the writer
/// was ended (by `finish`, by `FileUploadStore.abortWriter` or `cancel`), every call throws `writerAborted`.
/// Dropping the handle ends it without a sync.
public final class UploadWriter: Sendable {
    /// The upload written to.
    public let id: String
    private let entry: UploadEntry
    private let generation: UInt64
    private let hashChunkSize: Int
    private let clock: @Sendable () -> Double

    init(entry: UploadEntry, generation: UInt64, configuration: UploadStoreConfiguration) {
        self.id = entry.id
        self.entry = entry
        self.generation = generation
        self.hashChunkSize = configuration.hashChunkSize
        self.clock = configuration.clock
    }

    deinit {
        entry.release(generation: generation)
    }

    /// Appends `bytes` after the bytes written so far (not yet durable).
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        try entry.write(bytes, generation: generation)
    }

    /// Makes every written byte durable (fdatasync of the data: its size is the durable offset until the record
    /// is next saved); returns the durable offset, the one that may be reported to a client.
    public func sync() throws -> Int64 {
        try entry.sync(generation: generation)
    }

    /// Cuts the bytes written past `offset` (not below the durable offset) and makes the cut durable: content
    /// that failed its check is not kept.
    public func rewind(to offset: Int64) throws {
        try entry.rewind(to: offset, generation: generation)
    }

    /// The digests of every byte written so far, one per algorithm of `algorithms`, in their order.
    public func digests(_ algorithms: [MessageDigest.Algorithm]) throws -> [[UInt8]] {
        try entry.digests(algorithms, generation: generation, chunkSize: hashChunkSize)
    }

    /// Syncs and ends the writer. With `complete`, the upload is complete: its length is fixed (it must equal
    /// the declared one, if any, or `lengthMismatch` is thrown and the writer stays) and its SHA-256 computed.
    public func finish(complete: Bool) throws -> UploadRecord {
        try entry.finish(generation: generation, complete: complete, now: clock(), hashChunkSize: hashChunkSize)
    }
}
