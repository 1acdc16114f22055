import Foundation
import HTTPExchange
import HTTPWire
import Scenario
import SquallCore
import TLSKit
import UploadClient

/// The bearer token a server profile's `auth` recipe gives (`TokenRecipe`): the fixed token, the token endpoint's
/// answer at its token path, or a command's standard output.
enum ProfileToken {
    static let timeout: Duration = .seconds(10)

    /// The token `recipe` gives; nil when there is no recipe (the server needs no token).
    static func fetch(_ recipe: TokenRecipe?, tls: TLSContext?) throws(ServerCheckError) -> String? {
        switch recipe {
        case nil: return nil
        case .fixed(let token): return token
        case .endpoint(let request): return try fromEndpoint(request, tls: tls)
        case .command(let arguments): return try fromCommand(arguments)
        }
    }

    /// `request.method request.url` with its body and fields; the token at `request.tokenPath` of the JSON answer.
    private static func fromEndpoint(_ request: TokenRequest, tls: TLSContext?) throws(ServerCheckError) -> String {
        do {
            let url = try HTTPURL(request.url)
            let context = try tls ?? (url.endpoint.secure ? TLSContext(client: TLSClientConfiguration()) : nil)
            let connection = try HTTPClientConnection.open(to: url.endpoint, tls: context, timeout: timeout)
            defer { connection.close() }
            var fields = HTTPFields()
            for (name, value) in request.headers.sorted(by: { $0.key < $1.key }) {
                fields.append(name: name, value: value)
            }
            if let type = request.contentType { fields.set(type, for: "Content-Type") }
            let body = Array(request.body.utf8)
            fields.set(String(body.count), for: "Content-Length")
            let head = RequestHead(method: HTTPMethod(rawValue: request.method), target: url.target, fields: fields)
            let response = try connection.exchange(
                head, body: body.isEmpty ? nil : RequestBody(bytes: body), readTimeout: timeout)
            guard (200...299).contains(response.head.status) else {
                throw ServerCheckError(.token, "the token endpoint \(request.url) answered \(response.head.status)")
            }
            guard case .string(let token)? = value(at: request.tokenPath, in: try JSONValue.parse(response.body)),
                !token.isEmpty
            else {
                throw ServerCheckError(.token, "the token endpoint's answer has no string at \(request.tokenPath)")
            }
            return token
        } catch let error as ServerCheckError {
            throw error
        } catch {
            throw ServerCheckError(.token, "no token from \(request.url): \(error)")
        }
    }

    /// The command's standard output, trimmed; it must exit 0.
    private static func fromCommand(_ arguments: [String]) throws(ServerCheckError) -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        do {
            try process.run()
        } catch {
            throw ServerCheckError(.token, "cannot run \(arguments.joined(separator: " ")): \(error)")
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard process.terminationStatus == 0, !token.isEmpty else {
            throw ServerCheckError(
                .token, "\(arguments.joined(separator: " ")) exited \(process.terminationStatus) without a token")
        }
        return token
    }

    /// The value at `path` (`access_token`, `data.token`, `tokens[0].value`) of `json`.
    static func value(at path: String, in json: JSONValue) -> JSONValue? {
        var current: JSONValue? = json
        for part in path.split(separator: ".") {
            let name = part.prefix { $0 != "[" }
            if !name.isEmpty { current = current?[String(name)] }
            for index in part.dropFirst(name.count).split(separator: "[").compactMap({ Int($0.dropLast()) }) {
                guard case .array(let elements)? = current, elements.indices.contains(index) else { return nil }
                current = elements[index]
            }
        }
        return current
    }
}
