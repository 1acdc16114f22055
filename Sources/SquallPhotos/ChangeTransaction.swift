import UploadJobs

/// The change block under way on this thread or task: the job store's block that `performChanges` opened, and
/// the first refusal of a change request made in it (which then makes the whole block land nothing).
///
/// Change requests act on the block at once (so a creation's placeholder has its identifier), and a request used
/// after its block ended stops the program, naming the call.
final class ChangeTransaction: @unchecked Sendable {
    @TaskLocal static var current: ChangeTransaction?

    let binding: LibraryBinding
    // Only the thread running the change block touches these; `close` ends their use.
    private var block: UnsafeMutablePointer<JobChangeBlock>?
    private var refusal: PHPhotosError?
    /// Conduct to record once the block commits.
    private(set) var conduct: [ExtensionConduct] = []

    init(block: UnsafeMutablePointer<JobChangeBlock>, binding: LibraryBinding) {
        self.block = block
        self.binding = binding
    }

    /// The transaction of the change block under way; `call` outside one stops the program.
    static func inBlock(_ call: String) -> ChangeTransaction {
        guard let transaction = current, transaction.block != nil else {
            preconditionFailure(
                "SquallPhotos: \(call) outside a change block; make job changes inside PHPhotoLibrary.performChanges")
        }
        return transaction
    }

    /// Whether the block holds job `id` (it was not acknowledged or cancelled before).
    func holds(_ id: JobID) -> Bool {
        block?.pointee.job(id) != nil
    }

    /// The block's jobs for `action`, or nil once the block ended.
    func fetch(_ action: JobAction) -> [UploadJob]? {
        block?.pointee.fetch(action)
    }

    /// Makes a change; a refusal is kept (the first one) and the block will land nothing.
    @discardableResult
    func perform<Result>(
        _ call: String, _ change: (inout JobChangeBlock) throws(PHPhotosError) -> Result
    ) -> Result? {
        guard let block else {
            preconditionFailure("SquallPhotos: \(call) after its change block ended")
        }
        do {
            return try change(&block.pointee)
        } catch {
            if refusal == nil { refusal = error }
            return nil
        }
    }

    /// Keeps `record` for the conduct log; it is written if the block commits.
    func note(_ record: ExtensionConduct) {
        conduct.append(record)
    }

    /// Keeps `error` as the block's refusal when it is the first.
    func refuse(_ error: PHPhotosError) {
        if refusal == nil { refusal = error }
    }

    /// Ends the block's use; returns the first refusal, if any.
    func close() -> PHPhotosError? {
        block = nil
        return refusal
    }
}

extension JobChangeBlock {
    /// The store's refusal as PhotoKit's error.
    mutating func photos<Result>(_ change: (inout JobChangeBlock) throws(JobStoreError) -> Result) throws(PHPhotosError)
        -> Result
    {
        do {
            return try change(&self)
        } catch {
            throw PHPhotosError(error)
        }
    }
}
