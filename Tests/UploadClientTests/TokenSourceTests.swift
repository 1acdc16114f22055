import HTTPWire
import SquallCore
import TestSupport
import Testing

@testable import UploadClient

/// Token sources a server profile names: a token endpoint asked the way the server wants, the token read at a
/// JSON path; a command's output.
struct TokenSourceTests {
    static func answer(_ json: String) -> ScriptedStep {
        let body = Array(json.utf8)
        let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n"
        return ScriptedStep(ending: .raw(Array(head.utf8) + body))
    }

    @Test func theEndpointIsAskedAsTheProfileSaysAndTheTokenReadAtItsPath() throws {
        let server = try ScriptedServer(steps: [Self.answer(#"{"data": {"token": "t-1"}}"#)])
        defer { server.stop() }
        var request = TokenRequest(url: server.url + "/oauth/token?x=1")
        request.method = "PUT"
        request.body = "grant_type=client_credentials"
        request.contentType = "application/x-www-form-urlencoded"
        request.headers = ["X-Api-Key": "k"]
        request.tokenPath = "data.token"
        let source = TokenEndpoint(request: request)
        #expect(try source.token(refresh: false) == "t-1")
        #expect(try source.token(refresh: false) == "t-1", "kept until a refresh")
        let asked = try #require(server.requests.first)
        #expect(asked.head.method == HTTPMethod(rawValue: "PUT") && asked.head.target == "/oauth/token?x=1")
        #expect(asked.head.fields["Content-Type"] == "application/x-www-form-urlencoded")
        #expect(asked.head.fields["X-Api-Key"] == "k")
        #expect(asked.body == Array("grant_type=client_credentials".utf8))
    }

    @Test func anAnswerWithoutATokenAtThePathSaysWhereItLooked() throws {
        let server = try ScriptedServer(steps: [Self.answer(#"{"access_token": 7}"#)])
        defer { server.stop() }
        do {
            _ = try TokenEndpoint(url: server.url + "/token").token(refresh: true)
            Issue.record("a number was taken for a token")
        } catch let error as TransferError {
            #expect(error.code == .userAuthenticationRequired)
            #expect("\(error)".contains("without a token string at access_token"), "\(error)")
        }
    }

    @Test func aCommandPrintsTheTokenAndAFailingOneSaysWhy() throws {
        #expect(try CommandToken(arguments: ["sh", "-c", "echo '  tok-9 '"]).token(refresh: true) == "tok-9")
        do {
            _ = try CommandToken(arguments: ["sh", "-c", "echo nope >&2; exit 4"]).token(refresh: true)
            Issue.record("a failing command gave a token")
        } catch {
            #expect("\(error)".contains("exited with status 4: nope"), "\(error)")
        }
    }
}
