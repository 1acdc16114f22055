import Foundation
import Harness
import SquallCore
import Testing

@testable import Scenario

/// Server profiles (issue 15 item 1): read strictly with path-precise errors, and `Scenarios/server-profile.schema.json`
/// accepts exactly the files the loader accepts.
struct ServerProfileLoaderTests {
    static let fixtures = ScenarioSchemaTests.fixtures + "/profiles"
    static let profileSchema = ScenarioSchemaTests.root.appendingPathComponent("Scenarios/server-profile.schema.json")
        .path

    static func load(_ text: String) -> Result<ServerProfile, ScenarioErrors> {
        ServerProfileLoader.load(Array(text.utf8), file: "p.json")
    }

    static func errors(_ text: String) -> [String] {
        guard case .failure(let failure) = load(text) else { return [] }
        return failure.errors.map(\.description)
    }

    @Test func aFullProfileReadsEveryKey() throws {
        let profile = try ScenarioFiles.loadProfile(Self.fixtures + "/valid/full.json").get()
        #expect(profile.url == "https://uploads.example.com/files")
        #expect(profile.interop == [3, 5, 6] && profile.newestInterop == 6)
        #expect(profile.resumable == true && profile.progress104 == true)
        #expect(profile.retention == .seconds(3600))
        #expect(profile.maxSize == 4 << 30 && profile.maxAppendSize == 64 << 20 && profile.maxAge == .seconds(86_400))
        var request = TokenRequest(url: "https://uploads.example.com/oauth/token")
        request.body = "grant_type=client_credentials"
        request.contentType = "application/x-www-form-urlencoded"
        request.tokenPath = "data.access_token"
        request.headers = ["Authorization": "Basic YTpi"]
        #expect(profile.auth == .endpoint(request))
        #expect(profile.tokenTTL == .seconds(600))
        #expect(profile.expireTokens == .request(method: "POST", url: "http://127.0.0.1:9000/admin/expire-tokens"))
        #expect(profile.restart == .command(["docker", "restart", "uploads"]))
        var introspection = Introspection(url: "http://127.0.0.1:9000/admin/uploads/{id}", returns: .json)
        introspection.sha256Path = "digest.sha256"
        #expect(profile.introspection == introspection)
    }

    @Test func anEmptyProfileSaysNothing() throws {
        let profile = try Self.load("{}").get()
        #expect(profile == ServerProfile())
        #expect(!profile.servesResumably && profile.newestInterop == nil && profile.auth == nil)
    }

    @Test func mistakesNameThePathLineAndColumnAndAreAllReported() {
        #expect(
            Self.errors(#"{"interop": [6, 11], "limits": {"max-size": "4gib"}, "bogus": 1}"#) == [
                #"p.json: bogus (line 1, column 63): unknown key in a server profile; expected one of: url, interop, resumable, progress-104, retention, limits, auth, tokens, restart, introspection"#,
                #"p.json: interop[1] (line 1, column 17): expected a whole number in 3…10, found 11"#,
                #"p.json: limits.max-size (line 1, column 45): expected a size: whole bytes or a string such as "512KiB", "8MiB", "1GB", found "4gib": the unit "gib" is not one of B, KB, MB, GB, TB, KiB, MiB, GiB, TiB"#,
            ])
        #expect(
            Self.errors(#"{"interop": [6], "interop": [5]}"#) == [
                #"p.json: interop (line 1, column 18): the key "interop" appears twice in this object; keep one"#
            ])
        #expect(
            Self.errors(#"{"auth": {"token": "a", "command": ["x"]}}"#) == [
                "p.json: auth (line 1, column 10): expected exactly one of token, token-url, command"
            ])
        #expect(Self.errors("{\"url\": 1").first?.hasPrefix("p.json: line 1, column 10: not valid JSON") == true)
    }

    @Test func aScenarioTakesAProfileInlineAsItsUpstream() throws {
        let scenario = try ScenarioLoader.load(
            Array(
                #"{"name": "s", "description": "d", "assets": [{"name": "a", "size": 1}], "expect": {"retries": 0},"#
                    .utf8)
                + Array(#""server": {"upstream": {"url": "https://u.example/up", "interop": [5, 6]}}}"#.utf8),
            file: "s.json"
        ).get()
        #expect(scenario.server.upstream == "https://u.example/up")
        #expect(scenario.server.profile?.interop == [5, 6])
        guard
            case .failure(let failure) = ScenarioLoader.load(
                Array(
                    #"{"name": "s", "description": "d", "assets": [{"name": "a", "size": 1}], "expect": {"retries": 0}, "server": {"upstream": {"interop": [5]}}}"#
                        .utf8), file: "s.json")
        else {
            Issue.record("a profile without url was accepted")
            return
        }
        #expect(failure.errors.map(\.path) == ["server.upstream.url"])
    }

    @Test func theSchemaAndTheLoaderAcceptTheSameProfiles() throws {
        let valid = ScenarioSchemaTests.files(Self.fixtures + "/valid")
        let invalid = ScenarioSchemaTests.files(Self.fixtures + "/invalid")
        #expect(valid.count == 4 && invalid.count >= 13)
        let verdicts = try ScenarioSchemaTests.schemaVerdicts(valid + invalid, schema: Self.profileSchema)
        for file in valid {
            #expect(verdicts[file] == true, "the schema rejects \(file)")
            #expect((try? ScenarioFiles.loadProfile(file).get()) != nil, "the loader rejects \(file)")
        }
        for file in invalid {
            #expect(verdicts[file] == false, "the schema accepts \(file)")
            #expect((try? ScenarioFiles.loadProfile(file).get()) == nil, "the loader accepts \(file)")
        }
    }
}
