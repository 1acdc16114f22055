import Glibc

/// A journal failure: a stable `code`, the file concerned, the byte offset in it (for damaged records), the
/// `errno` behind it (0 when none) and a human `detail`.
///
/// Compare on `code`; the `detail` is for people and names the file and offset.
public struct JobJournalError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The stable identity of a journal failure.
    public enum Code: String, Sendable {
        /// Another open journal (in this process or another) holds the folder's lock.
        case journalInUse
        /// A record or the snapshot is damaged (header check, CRC, JSON, sequence, or a change that does not fit
        /// the store) somewhere other than a torn tail. Nothing was changed; the files are left as they are.
        case corrupt
        /// A commit's record would be larger than `JobJournalConfiguration.maxRecordBytes`; nothing was written.
        case recordTooLarge
        /// The journal was closed, or a failed write left it unusable; reopen it.
        case closed
        /// A system call failed.
        case io
    }

    public var code: Code
    /// The file or folder concerned, when there is one.
    public var path: String?
    /// The byte offset of the damaged record in `path`, for `corrupt`.
    public var offset: Int64?
    public var errno: Int32
    public var detail: String

    public init(_ code: Code, path: String? = nil, offset: Int64? = nil, errno: Int32 = 0, _ detail: String) {
        self.code = code
        self.path = path
        self.offset = offset
        self.errno = errno
        self.detail = detail
    }

    /// A damaged record or snapshot at `offset` in `path`.
    static func corrupt(_ path: String, at offset: Int64, _ what: String) -> JobJournalError {
        JobJournalError(.corrupt, path: path, offset: offset, "\(path) at offset \(offset): \(what)")
    }

    /// The error for a failed system call, from the current `errno`.
    static func system(_ call: String, path: String, errno value: Int32 = Glibc.errno) -> JobJournalError {
        JobJournalError(.io, path: path, errno: value, "\(call) \(path): \(String(cString: strerror(value)))")
    }

    public var description: String {
        "\(code.rawValue): \(detail)"
    }
}
