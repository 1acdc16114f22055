import Synchronization
import UploadStore

/// Issues and checks the reference server's bearer tokens (`--auth`).
///
/// The signing key (32 random bytes) and the "expire all tokens" mark live in the upload store as server files,
/// so tokens outlive a restart of the server on the same store, and an expiry outlives it too. Times are passed
/// in: microseconds for issuing and expiring, so that a token issued right after `expireAll` is never caught by
/// it.
final class TokenAuthority: Sendable {
    static let keyFile = "auth-key"
    static let revokedFile = "auth-revoked"

    /// How long a token is accepted, in seconds.
    let lifetime: Int64
    private let key: [UInt8]
    private let store: FileUploadStore
    private let marks: Mutex<Marks>

    private struct Marks {
        /// The `issuedAt` of the latest token issued by this run.
        var lastIssued: Int64 = 0
        /// Tokens issued at or before this are expired.
        var revokedThrough: Int64 = 0
    }

    /// Loads the key and the expiry mark from `store`, creating the key on first use.
    init(store: FileUploadStore, lifetime: Int64) throws {
        self.store = store
        self.lifetime = lifetime
        if let key = try store.serverFile(Self.keyFile), key.count == 32 {
            self.key = key
        } else {
            var generator = SystemRandomNumberGenerator()
            let key = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
            try store.writeServerFile(Self.keyFile, key)
            self.key = key
        }
        let revoked = try store.serverFile(Self.revokedFile).flatMap { Int64(String(decoding: $0, as: UTF8.self)) }
        self.marks = Mutex(Marks(revokedThrough: revoked ?? 0))
    }

    /// A new token for `principal`, issued at `now` (µs since 1970) or just after the previous one.
    func issue(principal: String, now: Int64) -> (token: BearerToken, text: String) {
        let issued = marks.withLock { marks in
            marks.lastIssued = max(now, marks.lastIssued + 1, marks.revokedThrough + 1)
            return marks.lastIssued
        }
        let token = BearerToken(principal: principal, issuedAt: issued, expiresAt: issued / 1_000_000 + lifetime)
        return (token, token.encoded(key: key))
    }

    /// The principal of the token `text`, when it is valid at `now` (µs since 1970).
    func principal(of text: String, now: Int64) throws(BearerToken.Rejection) -> String {
        let token = try BearerToken.decode(text, key: key)
        let revokedThrough = marks.withLock { $0.revokedThrough }
        guard token.issuedAt > revokedThrough, token.expiresAt > now / 1_000_000 else { throw .expired }
        return token.principal
    }

    /// Expires every token issued so far (at `now` µs or earlier), durably: a restart keeps them expired.
    func expireAll(now: Int64) throws {
        try marks.withLock { marks in
            let mark = max(marks.revokedThrough, now, marks.lastIssued)
            try store.writeServerFile(Self.revokedFile, Array(String(mark).utf8))
            marks.revokedThrough = mark
        }
    }
}
