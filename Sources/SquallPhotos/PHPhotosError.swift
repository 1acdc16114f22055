import Foundation
import UploadClient
import UploadJobs

/// PhotoKit's error for library operations, with the codes an upload extension meets. As in PhotoKit, a code
/// matches a thrown error in a `catch` pattern: `catch PHPhotosError.limitExceeded { … }`.
public struct PHPhotosError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The codes by name (PhotoKit's numeric values are not reproduced).
    public enum Code: Sendable, Hashable {
        case internalError
        case invalidParameter
        case identifierNotFound
        case persistentChangeTokenExpired
        case limitExceeded
    }

    public let code: Code
    /// What happened, in the job model's words (`job-3 has used its 2 retries`).
    public let detail: String

    public init(_ code: Code, _ detail: String = "") {
        self.code = code
        self.detail = detail
    }

    public static let internalError = Code.internalError
    public static let invalidParameter = Code.invalidParameter
    public static let identifierNotFound = Code.identifierNotFound
    public static let persistentChangeTokenExpired = Code.persistentChangeTokenExpired
    public static let limitExceeded = Code.limitExceeded

    public var description: String { "PHPhotosError.\(code)" + (detail.isEmpty ? "" : ": \(detail)") }

    /// The job store's refusal as PhotoKit reports it.
    init(_ error: JobStoreError) {
        switch error.code {
        case .limitExceeded: self.init(.limitExceeded, error.description)
        case .notFound: self.init(.identifierNotFound, error.description)
        case .retryLimitReached, .invalidTransition, .invalidDestination:
            self.init(.invalidParameter, error.description)
        case .invalidResponse, .invalidEvent, .replayMismatch: self.init(.internalError, error.description)
        }
    }

    /// The asset library's refusal as PhotoKit reports it.
    init(_ error: AssetLibraryError) {
        switch error.code {
        case .persistentChangeTokenExpired: self.init(.persistentChangeTokenExpired, "\(error)")
        }
    }
}

extension PHPhotosError.Code {
    /// `catch PHPhotosError.limitExceeded`: the code matches a `PHPhotosError` that carries it.
    public static func ~= (code: PHPhotosError.Code, error: any Error) -> Bool {
        (error as? PHPhotosError)?.code == code
    }
}
