import Foundation
import Glibc
import HTTPWire
import ResumableUpload
import SquallCore
import TestSupport
import Testing

@testable import UploadServer

struct ServerLogTests {
    static let version = InteropVersion(rawValue: 8)!

    /// The lines of the log at `path` without their `"time"` field, after checking that each is a JSON object
    /// starting with a UTC time to the microsecond.
    static func events(_ path: String) throws -> [String] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasSuffix("\n"))
        return try text.split(separator: "\n").map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            let time = try #require(object?["time"] as? String)
            #expect(time.wholeMatch(of: #/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z/#) != nil, "\(time)")
            let prefix = "{\"time\":\"\(time)\","
            try #require(line.hasPrefix(prefix), "\(line)")
            return "{" + line.dropFirst(prefix.count)
        }
    }

    static func startLine(_ server: UploadServer, recovered: Int) -> String {
        let listen = server.url.split(separator: "/").last ?? ""
        return #"{"event":"start","listen":"\#(listen)","store":"\#(server.storeDirectory)","recovered":\#(recovered)}"#
    }

    /// A creation cut after 40 000 bytes, then HEAD and PATCH on a new connection: request and response lines in
    /// order with their offsets, the 104 with `Location`, and the interrupted body with the bytes kept.
    @Test func anInterruptedCreationThenHeadAndPatch() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let logPath = folder.file("server.log")
        let fixture = try ServerFixture { $0.logPath = logPath }
        let data = ServerFixture.content(100_000, seed: 3)
        let first = try fixture.client()
        try first.send(.post, "/upload", ServerFixture.creationFields(Self.version) + [("Content-Length", "100000")])
        let id = ServerFixture.id(of: try first.readInterim().fields["Location"])
        try first.send(bytes: Array(data[..<40_000]))
        first.close()
        #expect(fixture.server.waitUntilIdle(timeout: .seconds(10)))

        let client = try fixture.client()
        defer { client.close() }
        let path = "/upload/" + id
        #expect(try client.request(.head, path, ServerFixture.versionField(Self.version)).status == 204)
        let patch = try client.request(
            .patch, path, ServerFixture.appendFields(Self.version, offset: 40_000), body: Array(data[40_000...]))
        #expect(patch.status == 200)
        fixture.server.stop()

        #expect(
            try Self.events(logPath) == [
                Self.startLine(fixture.server, recovered: 0),
                #"{"event":"request","conn":1,"method":"POST","target":"/upload","interop":8}"#,
                #"{"event":"response","conn":1,"status":104,"interim":true,"upload":"\#(id)"}"#,
                #"{"event":"interrupted","conn":1,"upload":"\#(id)","offset":40000,"reason":"eof"}"#,
                #"{"event":"request","conn":2,"method":"HEAD","target":"\#(path)","interop":8,"upload":"\#(id)","offset":40000}"#,
                #"{"event":"response","conn":2,"status":204,"upload":"\#(id)","offset":40000,"complete":false,"bytes":0}"#,
                #"{"event":"request","conn":2,"method":"PATCH","target":"\#(path)","interop":8,"upload":"\#(id)","offset":40000}"#,
                #"{"event":"response","conn":2,"status":200,"upload":"\#(id)","offset":100000,"complete":true,"bytes":60000}"#,
                #"{"event":"stop"}"#,
            ])
    }

    /// A HEAD while a creation's body still streams takes the upload over: the creation's connection logs its body
    /// as superseded, keeping the offset the HEAD reported.
    @Test func aBodyTakenOverByALaterRequestIsLoggedAsSuperseded() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let logPath = folder.file("server.log")
        let fixture = try ServerFixture { $0.logPath = logPath }
        let first = try fixture.client()
        defer { first.close() }
        try first.send(.post, "/upload", ServerFixture.creationFields(Self.version) + [("Content-Length", "100000")])
        let id = ServerFixture.id(of: try first.readInterim().fields["Location"])
        try first.send(bytes: ServerFixture.content(30_000))

        let client = try fixture.client()
        defer { client.close() }
        let head = try client.request(.head, "/upload/" + id, ServerFixture.versionField(Self.version))
        let offset = try #require(head["Upload-Offset"])
        fixture.server.stop()

        let events = try Self.events(logPath)
        let reason = "superseded by a later request"
        #expect(
            events.contains(
                #"{"event":"interrupted","conn":1,"upload":"\#(id)","offset":\#(offset),"reason":"\#(reason)"}"#),
            "\(events)")
        #expect(events.filter { $0.contains(#""event":"interrupted""#) }.count == 1)
        #expect(
            events.contains(
                #"{"event":"response","conn":2,"status":204,"upload":"\#(id)","offset":\#(offset),"complete":false,"bytes":0}"#
            ))
    }

    /// A server started on the log an earlier one wrote appends to it: the earlier lines stay, and the new start
    /// counts the upload the earlier server left in the store.
    @Test func aRestartedServerAppendsToTheSameLog() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let logPath = folder.file("server.log")
        let configure = { (configuration: inout UploadServerConfiguration) in
            configuration.storeDirectory = folder.file("store")
            configuration.logPath = logPath
        }
        var first: [String] = []
        do {
            let earlier = try ServerFixture(configure: configure)
            let client = try earlier.client()
            let body: [UInt8] = [1, 2, 3]
            let created = try client.request(.post, "/upload", ServerFixture.creationFields(Self.version), body: body)
            client.close()
            earlier.server.stop()
            let id = try #require(created["x-server-resource-id"])
            first = try Self.events(logPath)
            #expect(
                first == [
                    Self.startLine(earlier.server, recovered: 0),
                    #"{"event":"request","conn":1,"method":"POST","target":"/upload","interop":8}"#,
                    #"{"event":"response","conn":1,"status":104,"interim":true,"upload":"\#(id)"}"#,
                    #"{"event":"response","conn":1,"status":200,"upload":"\#(id)","offset":3,"complete":true,"bytes":3}"#,
                    #"{"event":"stop"}"#,
                ])
        }

        let later = try ServerFixture(configure: configure)
        later.server.stop()
        #expect(try Self.events(logPath) == first + [Self.startLine(later.server, recovered: 1), #"{"event":"stop"}"#])
    }

    /// A log that cannot be opened (its folder is missing, or a folder is in its place) fails the server's start
    /// with an error naming the path.
    @Test(arguments: ["missing/server.log", ""])
    func anUnopenableLogIsAnErrorNamingIt(name: String) throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        let path = folder.file(name)
        let error = try #require(throws: ServerLogError.self) {
            _ = try UploadServer(configuration: UploadServerConfiguration(logPath: path))
        }
        #expect(error.code == .cannotOpen)
        #expect(error.path == path)
        #expect(error.errno == (name.isEmpty ? EISDIR : ENOENT))
        #expect(error.description.contains(path))
    }

    /// Fields in the order given, nil ones left out, strings escaped so that any text survives a JSON parser.
    @Test func linesAreJSONWithFieldsInOrder() throws {
        let time: Int64 = 1_795_988_587_123_456
        let tricky = "a\"b\\c\nd\te\u{01}é/€"
        let line = ServerLog.line(
            unixMicroseconds: time, event: "request",
            fields: ["conn": .int(7), "target": .string(tricky), "interop": nil, "complete": .bool(false)])
        #expect(line.hasSuffix("}\n"))
        #expect(
            line == #"{"time":"2026-11-29T21:43:07.123456Z","event":"request","conn":7,"#
                + #""target":"a\"b\\c\nd\te\u0001é/€","complete":false}"# + "\n")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["target"] as? String == tricky)
        #expect(object["interop"] == nil)
        #expect(UTCTimestamp.text(unixMicroseconds: 0, fractionDigits: 6) == "1970-01-01T00:00:00.000000Z")
    }

    @Test(arguments: [
        ("/upload/abc", "abc"), ("/upload/abc?x=1", "abc"), ("/upload/", nil), ("/upload", nil),
        ("/upload/a/b", nil), ("/other/abc", nil),
    ])
    func theUploadIsTakenFromTheTarget(target: String, id: String?) {
        #expect(UploadConnection.uploadID(in: target, prefix: "/upload/") == id)
    }
}
