import Foundation
import HTTPWire
import ResumableUpload
import TestSupport
import Testing
import UploadServer

/// `--auth`: bearer tokens from `POST /_squall/token`, 401 with `WWW-Authenticate`, uploads bound to their
/// principal, and "expire all tokens".
struct AuthenticationTests {
    static func authenticated(_ configuration: inout UploadServerConfiguration) {
        configuration.authentication = AuthenticationConfiguration(tokenLifetime: 600)
    }

    static func bearer(_ token: String) -> [(String, String)] {
        [("Authorization", "Bearer " + token)]
    }

    /// A token from the token endpoint, with the decoded JSON answer.
    static func token(_ client: RawHTTPClient, principal: String) throws -> (String, [String: Any]) {
        let answer = try client.request(
            .post, "/_squall/token", [("Content-Type", "application/x-www-form-urlencoded")],
            body: Array("principal=\(principal)".utf8))
        #expect(answer.status == 200)
        #expect(answer["Cache-Control"] == "no-store")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])
        return (try #require(json["access_token"] as? String), json)
    }

    @Test(arguments: InteropVersion.all)
    func aCreationWithoutATokenGets401AndStoresNothing(version: InteropVersion) throws {
        let fixture = try ServerFixture(configure: Self.authenticated)
        let client = try fixture.client()
        defer { client.close() }
        let answer = try client.request(.post, "/upload", ServerFixture.creationFields(version), body: [1, 2, 3])
        #expect(answer.interims.isEmpty)
        #expect(answer.status == 401)
        #expect(answer["WWW-Authenticate"] == #"Bearer realm="squall""#)
        #expect(answer[InteropVersion.fieldName] == "\(version.rawValue)")
        #expect(fixture.server.uploads().isEmpty)
    }

    @Test func theTokenEndpointAnswersAnOAuthTokenResponse() throws {
        let fixture = try ServerFixture(configure: Self.authenticated)
        let client = try fixture.client()
        defer { client.close() }
        let (token, json) = try Self.token(client, principal: "alice")
        #expect(token.hasPrefix("sq1."))
        #expect(json["token_type"] as? String == "Bearer")
        #expect(json["expires_in"] as? Int == 600)
        #expect(json["principal"] as? String == "alice")

        let byQuery = try client.request(.post, "/_squall/token?principal=bob%40example.com")
        let query = try #require(try JSONSerialization.jsonObject(with: Data(byQuery.body)) as? [String: Any])
        #expect(query["principal"] as? String == "bob@example.com")
        let byDefault = try client.request(.post, "/_squall/token")
        let plain = try #require(try JSONSerialization.jsonObject(with: Data(byDefault.body)) as? [String: Any])
        #expect(plain["principal"] as? String == "squall")
    }

    @Test(arguments: [
        ("/_squall/token?principal=a%20b", HTTPMethod.post, 400),
        ("/_squall/token?principal=" + String(repeating: "x", count: 65), .post, 400),
        ("/_squall/token", .get, 405),
        ("/_squall/expire-tokens", .get, 405),
        ("/_squall/nothing", .get, 404),
    ])
    func badTokenRequestsAreRefused(target: String, method: HTTPMethod, status: Int) throws {
        let fixture = try ServerFixture(configure: Self.authenticated)
        let client = try fixture.client()
        defer { client.close() }
        let answer = try client.request(method, target)
        #expect(answer.status == status)
        if status == 405 { #expect(answer["Allow"] == "POST") }
    }

    @Test func withoutAuthTheTokenEndpointsDoNotExist() throws {
        let fixture = try ServerFixture()
        let client = try fixture.client()
        defer { client.close() }
        #expect(try client.request(.post, "/_squall/token").status == 404)
        #expect(try client.request(.post, "/_squall/expire-tokens").status == 404)
        #expect(fixture.server.issueToken(for: "alice") == nil)
        let created = try client.request(
            .post, "/upload", ServerFixture.creationFields(InteropVersion(rawValue: 8)!), body: [1])
        #expect(created.status == 200)
    }

    @Test(arguments: InteropVersion.all)
    func anUploadBelongsToItsPrincipal(version: InteropVersion) throws {
        let fixture = try ServerFixture(configure: Self.authenticated)
        let client = try fixture.client()
        defer { client.close() }
        let alice = try Self.token(client, principal: "alice").0
        let bob = try Self.token(client, principal: "bob").0
        let data = ServerFixture.content(5000, seed: 3)
        let created = try client.request(
            .post, "/upload", ServerFixture.creationFields(version, complete: false) + Self.bearer(alice),
            body: Array(data[..<2000]))
        let id = try #require(
            created["x-server-resource-id"]
                ?? created.interims.first.map {
                    ServerFixture.id(of: $0.fields["Location"])
                })
        let path = "/upload/" + id

        let bobHead = try client.request(.head, path, ServerFixture.versionField(version) + Self.bearer(bob))
        #expect(bobHead.status == 404)
        let bobPatch = try fixture.client()
        defer { bobPatch.close() }
        let stolen = try bobPatch.request(
            .patch, path, ServerFixture.appendFields(version, offset: 2000) + Self.bearer(bob), body: [0])
        #expect(stolen.status == 404)
        let bobDelete = try client.request(.delete, path, ServerFixture.versionField(version) + Self.bearer(bob))
        #expect(bobDelete.status == 404)

        let patch = try client.request(
            .patch, path, ServerFixture.appendFields(version, offset: 2000) + Self.bearer(alice),
            body: Array(data[2000...]))
        #expect((200...204).contains(patch.status))
        let record = try #require(fixture.record(id))
        #expect(record.principal == "alice")
        #expect(record.sha256 == ServerFixture.sha256(data))
    }

    @Test func expiringAllTokensGets401UntilANewTokenIsFetched() throws {
        let fixture = try ServerFixture(configure: Self.authenticated)
        let client = try fixture.client()
        defer { client.close() }
        let old = try Self.token(client, principal: "alice").0
        let created = try client.request(
            .post, "/upload",
            ServerFixture.creationFields(InteropVersion(rawValue: 8)!, complete: false) + Self.bearer(old),
            body: [1, 2])
        let path = "/upload/" + ServerFixture.id(of: created.interims.first?.fields["Location"])

        #expect(try client.request(.post, "/_squall/expire-tokens").status == 204)
        let refused = try client.request(
            .head, path, ServerFixture.versionField(InteropVersion(rawValue: 8)!) + Self.bearer(old))
        #expect(refused.status == 401)
        #expect(refused["WWW-Authenticate"]?.contains(#"error="invalid_token""#) == true)
        #expect(refused["WWW-Authenticate"]?.contains("expired") == true)

        let fresh = try Self.token(client, principal: "alice").0
        let head = try client.request(
            .head, path, ServerFixture.versionField(InteropVersion(rawValue: 8)!) + Self.bearer(fresh))
        #expect(head.status == 204 || head.status == 200)
        #expect(head["Upload-Offset"] == "2")
    }

    @Test func tokensAndTheirExpiryOutliveARestart() throws {
        let store = try TLSFixtures.TemporaryDirectory()
        let configure: (inout UploadServerConfiguration) -> Void = { configuration in
            Self.authenticated(&configuration)
            configuration.storeDirectory = store.path
        }
        var kept = ""
        var expired = ""
        do {
            let fixture = try ServerFixture(configure: configure)
            expired = try #require(fixture.server.issueToken(for: "alice"))
            try fixture.server.expireTokens()
            kept = try #require(fixture.server.issueToken(for: "alice"))
        }
        let fixture = try ServerFixture(configure: configure)
        let client = try fixture.client()
        defer { client.close() }
        let options = [(InteropVersion.fieldName, "8")]
        #expect(try client.request(.options, "/upload", options + Self.bearer(kept)).status == 200)
        #expect(try client.request(.options, "/upload", options + Self.bearer(expired)).status == 401)
    }

    @Test(arguments: [
        "Bearer sq1.nonsense.AAAA", "Bearer", "Basic YWxpY2U6c2VjcmV0", "Bearer two words",
    ])
    func aTokenThatIsNotOursGets401(authorization: String) throws {
        let fixture = try ServerFixture(configure: Self.authenticated)
        let client = try fixture.client()
        defer { client.close() }
        let answer = try client.request(
            .options, "/upload", [(InteropVersion.fieldName, "8"), ("Authorization", authorization)])
        #expect(answer.status == 401)
        #expect(answer["WWW-Authenticate"]?.hasPrefix(#"Bearer realm="squall""#) == true)
    }

    @Test func aTokenSignedByAnotherServerGets401() throws {
        let other = try ServerFixture(configure: Self.authenticated)
        let foreign = try #require(other.server.issueToken(for: "alice"))
        let fixture = try ServerFixture(configure: Self.authenticated)
        let client = try fixture.client()
        defer { client.close() }
        let answer = try client.request(.options, "/upload", [(InteropVersion.fieldName, "8")] + Self.bearer(foreign))
        #expect(answer.status == 401)
        #expect(answer["WWW-Authenticate"]?.contains("not valid") == true)
    }
}
