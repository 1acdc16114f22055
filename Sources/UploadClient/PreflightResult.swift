import Dispatch
import HTTPWire
import ResumableUpload
import Synchronization

/// What the OPTIONS preflight of an upload endpoint said (the PhotoKit server contract; §3.1 of the digest).
///
/// - `200` with `Upload-Limit` → `resumable` with the limits (`min-size=0` when there are none).
/// - `501` → `notResumable`: uploads to the endpoint go the plain way (no interop version, no 104).
/// - Anything else (another status, a 200 without or with a malformed `Upload-Limit`, no answer) → `unknown`:
///   the creation is still sent resumably, as a transparent upgrade (§3.13): a server that does not support
///   resumable uploads ignores the fields, and only a 104 makes the upload resumable. Unknown answers are not
///   cached, so the next transfer asks again.
public enum PreflightResult: Sendable, Hashable {
    case resumable(UploadLimits)
    case notResumable
    case unknown(status: Int?)

    /// Classifies the final response to an OPTIONS sent with `version`. `Upload-Limit` is read in the interop-6
    /// spelling for older versions, as servers send it then.
    public init(response: ResponseHead, version: InteropVersion) {
        switch response.status {
        case 501:
            self = .notResumable
        case 200...299:
            let spelling = max(version, InteropVersion(rawValue: 6)!)
            guard let field = response.fields[UploadLimits.fieldName],
                let limits = try? UploadLimits(field: field, version: spelling)
            else {
                self = .unknown(status: response.status)
                return
            }
            self = .resumable(limits)
        default:
            self = .unknown(status: response.status)
        }
    }

    /// The limits a resumable endpoint announced.
    public var limits: UploadLimits? {
        if case .resumable(let limits) = self { return limits }
        return nil
    }

    /// Whether the answer is definite and kept in a `PreflightCache`.
    public var isCacheable: Bool {
        if case .unknown = self { return false }
        return true
    }
}

/// Preflight answers per endpoint URL and interop version, shared by the transfers of one client (thread-safe).
public final class PreflightCache: Sendable {
    private struct Key: Hashable {
        var url: String
        var version: Int
    }

    private let answers = Mutex<[Key: PreflightResult]>([:])
    /// Preflights under way, with the transfers waiting for their answer.
    private let asking = Mutex<[Key: [DispatchSemaphore]]>([:])

    public init() {}

    /// The cached answer for `url` and `version`, if any.
    public func answer(for url: String, version: InteropVersion) -> PreflightResult? {
        answers.withLock { $0[Key(url: url, version: version.rawValue)] }
    }

    /// Keeps `answer` when it is definite (`isCacheable`).
    public func store(_ answer: PreflightResult, for url: String, version: InteropVersion) {
        guard answer.isCacheable else { return }
        answers.withLock { $0[Key(url: url, version: version.rawValue)] = answer }
    }

    /// The cached answer, or `ask()`'s — asked once however many transfers start together: the others wait for
    /// it (at most `patience`) and use it, so an endpoint sees one OPTIONS. A waiter that finds no definite
    /// answer afterwards asks itself.
    public func answer(
        for url: String, version: InteropVersion, patience: Duration = .seconds(30), ask: () -> PreflightResult
    ) -> PreflightResult {
        let key = Key(url: url, version: version.rawValue)
        if let known = answer(for: url, version: version) { return known }
        let waiter = DispatchSemaphore(value: 0)
        let first = asking.withLock { (table: inout [Key: [DispatchSemaphore]]) -> Bool in
            if let waiting = table[key] {
                table[key] = waiting + [waiter]
                return false
            }
            table[key] = []
            return true
        }
        if !first {
            _ = waiter.wait(timeout: .now() + .nanoseconds(Int(patience / .nanoseconds(1))))
            if let known = answer(for: url, version: version) { return known }
            return ask()
        }
        let result = ask()
        store(result, for: url, version: version)
        for waiting in asking.withLock({ $0.removeValue(forKey: key) ?? [] }) { waiting.signal() }
        return result
    }
}
