import Foundation
import HTTPExchange
import HTTPWire
import ResumableUpload
import Scenario
import SquallCore
import SquallNet
import TLSKit
import UploadClient
import UploadJobs

/// The user's server (`--upstream`) as a run drives it through its `ServerProfile`: the creation path, the token
/// source, and what the profile says to do for the events and expectations that reach the server itself
/// (`restart-server`, `expire-tokens`, the server's objects through introspection).
struct OutsideServer {
    /// The upstream URL as given (`https://uploads.example.com/files`).
    let url: String
    let profile: ServerProfile
    /// The CA file the client trusts for an https token URL that does not go through the proxy.
    let caFile: String?
    /// The run's stop: a profile's command still running when it is asked for is stopped with the run.
    var stop: ProcessStop? = nil

    /// How long a restart may take before the upstream accepts connections again.
    static let restartReadiness = Duration.seconds(60)
    /// How long a profile's command may run.
    static let commandTimeout = Duration.seconds(60)

    /// The creation path on the upstream: the URL's path, else `/upload` (the reference server's).
    var creationPath: String {
        let path = (try? HTTPURL(url))?.target ?? "/"
        return path == "/" ? "/upload" : path
    }

    /// The profile's token recipe; with `throughProxy`, a token URL on the upstream's origin goes through the proxy
    /// (`proxyURL`), so that the proxy sees and counts it (a scenario about auth); otherwise it is asked directly.
    func tokenRecipe(proxyURL: String, throughProxy: Bool) -> TokenRecipe? {
        guard throughProxy, case .endpoint(var request)? = profile.auth,
            let origin = UploadRequest.origin(of: request.url),
            origin == UploadRequest.origin(of: url)
        else { return profile.auth }
        request.url = proxyURL + request.url.dropFirst(origin.count)
        return .endpoint(request)
    }

    /// The path the client's token requests take through the proxy, when they do (for `auth-refreshes`).
    func tokenPath(proxyURL: String, throughProxy: Bool) -> String? {
        guard case .endpoint(let request)? = tokenRecipe(proxyURL: proxyURL, throughProxy: throughProxy),
            request.url.hasPrefix(proxyURL)
        else {
            return nil
        }
        let path = String(request.url.dropFirst(proxyURL.count))
        return String(path.prefix { $0 != "?" })
    }

    /// `restart-server`: the profile's restart action, then waits until the upstream accepts connections.
    func restart() throws -> [String] {
        guard let action = profile.restart else { throw HarnessError("the profile has no restart action") }
        let started = ContinuousClock.now
        let did = try perform(action)
        let endpoint = try HTTPURL(url).endpoint
        let host = endpoint.host.hasPrefix("[") ? String(endpoint.host.dropFirst().dropLast()) : endpoint.host
        let target = try SocketAddress(host: host, port: endpoint.port)
        let deadline = started + Self.restartReadiness
        while true {
            if let socket = try? TCPConnector.connect(to: target, timeout: .seconds(1)) {
                socket.close()
                break
            }
            guard ContinuousClock.now < deadline else {
                throw HarnessError("the upstream did not accept connections within 60 s of the restart")
            }
            // Polling a port that is not listening yet: a refused connect returns at once, so pace the attempts.
            Thread.sleep(forTimeInterval: 0.05)
        }
        let waited = (ContinuousClock.now - started) / .milliseconds(1)
        return [did, "the upstream accepted connections again after \(Int(waited)) ms"]
    }

    /// `expire-tokens`: the profile's expire action.
    func expireTokens() throws -> String {
        guard let action = profile.expireTokens else { throw HarnessError("the profile has no way to expire tokens") }
        return try perform(action)
    }

    /// Runs a command (exit status 0) or sends a request (2xx); says what it did.
    private func perform(_ action: ProfileAction) throws -> String {
        switch action {
        case .command(let arguments):
            let run = try CommandRun(arguments, timeout: Self.commandTimeout, stop: stop)
            guard run.status == 0 else {
                throw HarnessError(
                    "\(arguments.joined(separator: " ")) exited with status \(run.status): \(run.errors.prefix(500))")
            }
            return "ran \(arguments.joined(separator: " "))"
        case .request(let method, let url):
            let response = try Self.fetch(method: method, url: url, caFile: caFile)
            guard (200...299).contains(response.head.status) else {
                throw HarnessError("\(method) \(url) answered \(response.head.status)")
            }
            return "\(method) \(url) answered \(response.head.status)"
        }
    }

    /// The server's objects for the succeeded jobs, through the profile's introspection: one `ServerUpload` per job
    /// whose upload the template can name, with the SHA-256 of what the server holds. Nil without introspection.
    func uploads(of jobs: [JobHistory]) -> [ServerUpload]? {
        guard let introspection = profile.introspection else { return nil }
        var uploads: [ServerUpload] = []
        for job in jobs where job.state == .succeeded {
            guard let address = address(of: job, introspection) else { continue }
            let digest = try? sha256(at: address, introspection)
            let id =
                job.serverResourceID ?? job.uploadResource.map { Self.lastSegment(UploadRequest.path(of: $0)) } ?? ""
            uploads.append(
                ServerUpload(id: id, complete: digest != nil, cancelled: false, length: nil, offset: 0, sha256: digest))
        }
        return uploads
    }

    /// The template filled in for `job`, nil when the job lacks what it names.
    private func address(of job: JobHistory, _ introspection: Introspection) -> String? {
        var text = introspection.url
        let resource = job.uploadResource.map { UploadRequest.path(of: $0) }
        // A plain upload has no upload resource: its id is the server's resource id, if it sent one.
        let values: [(String, String?)] = [
            ("{id}", resource.map(Self.lastSegment) ?? job.serverResourceID), ("{path}", resource),
            ("{resource-id}", job.serverResourceID),
        ]
        for (name, value) in values where text.contains(name) {
            guard let value else { return nil }
            text = text.replacingOccurrences(of: name, with: value)
        }
        return text
    }

    /// The last segment of a path: an upload resource's id on most servers.
    static func lastSegment(_ path: String) -> String {
        String(path.split(separator: "/").last ?? "")
    }

    /// The SHA-256 (lower-case hex) of the object the introspection URL answers for.
    private func sha256(at address: String, _ introspection: Introspection) throws -> String {
        let digest = MessageDigest(.sha256)
        let response = try Self.fetch(method: "GET", url: address, caFile: caFile) { digest.update($0) }
        guard (200...299).contains(response.head.status) else {
            throw HarnessError("GET \(address) answered \(response.head.status)")
        }
        switch introspection.returns {
        case .object:
            return MessageDigest.hexString(digest.finalize())
        case .sha256:
            return try Self.hexDigest(String(decoding: response.body, as: UTF8.self))
        case .json:
            guard case .string(let text)? = try JSONValue.parse(response.body).value(atPath: introspection.sha256Path)
            else { throw HarnessError("GET \(address): no string at \(introspection.sha256Path)") }
            return try Self.hexDigest(text)
        }
    }

    /// A SHA-256 given as 64 hex digits or as base64 (with or without padding), as lower-case hex.
    static func hexDigest(_ text: String) throws -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.count == 64, trimmed.allSatisfy(\.isHexDigit) { return trimmed.lowercased() }
        let padded = trimmed + String(repeating: "=", count: (4 - trimmed.count % 4) % 4)
        guard let bytes = Data(base64Encoded: padded), bytes.count == 32 else {
            throw HarnessError("'\(trimmed.prefix(80))' is not a SHA-256 in hex or base64")
        }
        return bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// One request with an empty body; `onContent` sees the whole answer as it streams (the response keeps its
    /// first 64 KiB).
    static func fetch(
        method: String, url: String, caFile: String?, onContent: ((ArraySlice<UInt8>) -> Void)? = nil
    ) throws -> HTTPResponse {
        let target = try HTTPURL(url)
        let trust = caFile.map { TLSTrust.caFile($0) } ?? .systemDefault
        let tls = try target.endpoint.secure ? TLSContext(client: TLSClientConfiguration(trust: trust)) : nil
        let connection = try HTTPClientConnection.open(to: target.endpoint, tls: tls, timeout: .seconds(10))
        defer { connection.close() }
        let head = RequestHead(
            method: HTTPMethod(rawValue: method), target: target.target, fields: ["Content-Length": "0"])
        return try connection.exchange(head, readTimeout: .seconds(30), onContent: onContent)
    }
}
