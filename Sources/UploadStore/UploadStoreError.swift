import Glibc

/// An error from the upload store: a stable `code`, the file or upload it concerns, the `errno` behind it
/// (0 when none) and a human `detail`.
///
/// Compare on `code`; the `detail` is for people.
public struct UploadStoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The stable identity of a store failure.
    public enum Code: String, Sendable {
        /// No upload with that id (or it was removed by the retention sweep).
        case notFound
        /// The upload belongs to another principal.
        case principalMismatch
        /// An id given by the caller is not 32 lowercase hex digits, or is already taken; or a server file name
        /// is not lowercase letters and dashes.
        case invalidID
        /// The writer was ended by `abortWriter`, `cancel`, or a finish; it may not write again.
        case writerAborted
        /// Another writer is still active for the upload; abort it first.
        case writerActive
        /// An append did not start at the durable offset.
        case offsetMismatch
        /// A write would pass the upload's length, or a new length contradicts the known one.
        case lengthMismatch
        /// The upload is complete; it takes no more bytes.
        case alreadyComplete
        /// The upload was cancelled; only its tombstone is left.
        case cancelled
        /// A metadata file could not be decoded (it is left untouched).
        case corruptMetadata
        /// A data file is shorter than the offset its metadata made durable.
        case corruptData
        /// Another open store (in this process or another) holds the folder's lock.
        case storeInUse
        /// A system call failed.
        case io
    }

    public var code: Code
    /// The file or folder concerned, when there is one.
    public var path: String?
    public var errno: Int32
    public var detail: String

    public init(_ code: Code, path: String? = nil, errno: Int32 = 0, _ detail: String) {
        self.code = code
        self.path = path
        self.errno = errno
        self.detail = detail
    }

    /// The error for a failed system call, from the current `errno`.
    static func system(_ call: String, path: String, errno value: Int32 = Glibc.errno) -> UploadStoreError {
        UploadStoreError(.io, path: path, errno: value, "\(call) \(path): \(String(cString: strerror(value)))")
    }

    public var description: String {
        "\(code.rawValue): \(detail)"
    }
}
