import Glibc
import TestSupport
import Testing
import UploadStore

@testable import UploadServer

/// The signed token format and the authority's clock rules, with explicit times.
struct BearerTokenTests {
    static let key = [UInt8](repeating: 7, count: 32)

    @Test func aTokenRoundTripsUnderItsKey() throws {
        let token = BearerToken(
            principal: "alice@example.com", issuedAt: 1_700_000_000_123_456, expiresAt: 1_700_000_600)
        let text = token.encoded(key: Self.key)
        #expect(text.hasPrefix("sq1."))
        #expect(!text.contains("=") && !text.contains("+") && !text.contains("/"))
        #expect(try BearerToken.decode(text, key: Self.key) == token)
    }

    @Test func aTamperedOrForeignTokenIsInvalid() {
        let text = BearerToken(principal: "alice", issuedAt: 1, expiresAt: 2).encoded(key: Self.key)
        let forgedPayload = BearerToken(principal: "mallory", issuedAt: 1, expiresAt: 2).encoded(key: Self.key)
        let spliced =
            String(forgedPayload.prefix { $0 != "." }) + "."
            + forgedPayload.split(separator: ".")[1] + "." + text.split(separator: ".")[2]
        for bad in [spliced, String(text.dropLast()), "sq1..", "", "sq2" + text.dropFirst(3)] {
            #expect(throws: BearerToken.Rejection.invalid) { try BearerToken.decode(bad, key: Self.key) }
        }
        #expect(throws: BearerToken.Rejection.invalid) {
            try BearerToken.decode(text, key: [UInt8](repeating: 8, count: 32))
        }
    }

    @Test(arguments: [
        ("Bearer abc.def", "abc.def"), ("bearer abc", "abc"), ("BEARER  abc", "abc"), ("Basic abc", nil),
        ("Bearer", nil), ("Bearer a b", nil), ("Bearer a\"b", nil),
    ])
    func credentialsComeFromTheBearerScheme(value: String, token: String?) {
        #expect(BearerToken.credentials(inAuthorization: value) == token)
    }

    @Test func tokensExpireAfterTheirLifetimeAndOnExpireAll() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let store = try FileUploadStore(configuration: UploadStoreConfiguration(directory: folder.path))
        let authority = try TokenAuthority(store: store, lifetime: 60)
        let second: Int64 = 1_000_000
        let issued = authority.issue(principal: "alice", now: 1000 * second)
        #expect(issued.token.expiresAt == 1060)
        #expect(try authority.principal(of: issued.text, now: 1059 * second) == "alice")
        #expect(throws: BearerToken.Rejection.expired) { try authority.principal(of: issued.text, now: 1060 * second) }

        let again = authority.issue(principal: "alice", now: 1000 * second)
        #expect(again.token.issuedAt == issued.token.issuedAt + 1)
        try authority.expireAll(now: 1001 * second)
        #expect(throws: BearerToken.Rejection.expired) { try authority.principal(of: again.text, now: 1002 * second) }
        let after = authority.issue(principal: "alice", now: 1001 * second)
        #expect(after.token.issuedAt > 1001 * second)
        #expect(try authority.principal(of: after.text, now: 1002 * second) == "alice")

        let reopened = try TokenAuthority(store: store, lifetime: 60)
        #expect(try reopened.principal(of: after.text, now: 1002 * second) == "alice")
        #expect(throws: BearerToken.Rejection.expired) { try reopened.principal(of: again.text, now: 1002 * second) }
    }

    @Test func theSigningKeyIsPrivateToItsOwner() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let store = try FileUploadStore(configuration: UploadStoreConfiguration(directory: folder.path))
        _ = try TokenAuthority(store: store, lifetime: 60)
        var status = stat()
        #expect(stat(folder.path + "/server.auth-key", &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)
        #expect(try store.serverFile("auth-key")?.count == 32)
        #expect(store.list().isEmpty)
        #expect(throws: UploadStoreError.self) { try store.serverFile("../escape") }
    }
}
