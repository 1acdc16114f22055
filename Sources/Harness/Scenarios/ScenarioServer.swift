import Foundation
import Glibc
import HTTPExchange
import HTTPWire
import ResumableUpload
import Scenario
import SquallCore
import SquallNet
import UploadServer

/// The reference server a scenario runs against: in-process, or a child `squall server` process when an event
/// kills it (`restart-server`), so that the store's durability is tested for real. Both answer the admin
/// endpoints over HTTP, which is how the runner reads their state.
final class ScenarioServer {
    /// The base URL, e.g. `http://127.0.0.1:40123`.
    private(set) var url: String
    private let store: String
    private let spec: ServerSpec
    private var inProcess: UploadServer?
    private var child: ChildProcess?
    private let binary: String?
    /// The server's request log (JSON Lines), appended to across restarts; nil keeps none.
    private let log: String?
    /// The run's stop, which stops the child server too.
    private let runStop: ProcessStop?
    /// The negative control's defect: a (child) server that deletes its uploads at each start.
    private let defectForgetsUploads: Bool

    init(
        spec: ServerSpec, store: String, log: String? = nil, asChildOf binary: String?, stop: ProcessStop? = nil,
        defectOffsetBeyondStored: Int64 = 0, defectForgetsUploads: Bool = false
    ) throws {
        self.defectForgetsUploads = defectForgetsUploads
        self.spec = spec
        self.store = store
        self.binary = binary
        self.log = log
        self.runStop = stop
        if let binary {
            self.url = ""
            self.child = nil
            self.inProcess = nil
            let (process, url) = try Self.spawn(
                binary, spec: spec, store: store, log: log, listen: "127.0.0.1:0", stop: stop,
                forgetsUploads: defectForgetsUploads)
            self.child = process
            self.url = url
        } else {
            var configuration = Self.configuration(spec, store: store)
            configuration.logPath = log
            configuration.uploadProtocol.defectOffsetBeyondStored = defectOffsetBeyondStored
            let server = try UploadServer(configuration: configuration)
            self.inProcess = server
            self.url = server.url
        }
    }

    deinit {
        stop()
    }

    var address: String { String(url.dropFirst("http://".count)) }

    /// The server's uploads, from `GET /_squall/uploads`.
    func uploads() throws -> [ServerUpload] {
        let body = try AdminRequest.send(.get, "/_squall/uploads", to: address)
        let listing = try JSONDecoder().decode([UploadAdminListing].self, from: Data(body))
        return listing.map {
            ServerUpload(
                id: $0.id, complete: $0.complete, cancelled: $0.cancelled, length: $0.length, offset: $0.offset,
                sha256: $0.sha256)
        }
    }

    /// Expires every token issued so far.
    func expireTokens() throws {
        _ = try AdminRequest.send(.post, "/_squall/expire-tokens", to: address)
    }

    /// SIGKILL to the child server, then a restart from its store on the same port; says what it did.
    func restart() throws -> [String] {
        guard let binary, let child else { throw HarnessError("restart-server needs the server in a child process") }
        child.end(with: SIGKILL)
        let (process, _) = try Self.spawn(
            binary, spec: spec, store: store, log: log, listen: address, stop: runStop,
            forgetsUploads: defectForgetsUploads)
        self.child = process
        return [
            "SIGKILL to server pid \(child.pid)",
            "server restarted from its store on \(address) as pid \(process.pid)",
        ]
    }

    func stop() {
        inProcess?.stop()
        inProcess = nil
        child?.end(with: SIGTERM)
        child = nil
    }

    static func configuration(_ spec: ServerSpec, store: String) -> UploadServerConfiguration {
        var configuration = UploadServerConfiguration(storeDirectory: store)
        configuration.uploadProtocol = uploadProtocol(spec)
        // As `squall server`: HTTP/2 with prior knowledge too, which the proxy's upstream leg speaks to it.
        configuration.http2 = true
        if let ttl = spec.tokenTTL {
            configuration.authentication = AuthenticationConfiguration(tokenLifetime: max(1, Int64(ttl / .seconds(1))))
        }
        return configuration
    }

    private static func uploadProtocol(_ spec: ServerSpec) -> UploadProtocolConfiguration {
        var rules = UploadProtocolConfiguration()
        rules.versions = Set(spec.interop.compactMap(InteropVersion.init(rawValue:)))
        rules.resumable = spec.resumable
        rules.limits.maxSize = spec.maxSize
        rules.limits.maxAppendSize = spec.maxAppendSize
        rules.limits.maxAge = spec.maxAge.map { max(1, Int64($0 / .seconds(1))) }
        rules.progressInterval = spec.progressInterval
        rules.progressLimit = spec.progressLimit
        rules.progressSpacing = spec.progressSpacing
        return rules
    }

    /// `squall server` with the spec's flags; returns the process and the URL it printed.
    private static func spawn(
        _ binary: String, spec: ServerSpec, store: String, log: String?, listen: String, stop: ProcessStop?,
        forgetsUploads: Bool = false
    ) throws -> (ChildProcess, String) {
        var arguments = [
            "server", "--listen", listen, "--store", store, "--interop",
            spec.interop.map(InteropVersion.word).joined(separator: ","),
            "--progress-interval", String(spec.progressInterval),
            "--progress-limit", spec.progressLimit.map(String.init) ?? "none",
            "--progress-spacing", DurationText.format(spec.progressSpacing) ?? "0s",
            "--resumable", spec.resumable ? "on" : "off",
        ]
        if let size = spec.maxSize { arguments += ["--max-size", String(size)] }
        if let size = spec.maxAppendSize { arguments += ["--max-append-size", String(size)] }
        if let age = spec.maxAge { arguments += ["--max-age", "\(max(1, Int64(age / .seconds(1))))s"] }
        if let ttl = spec.tokenTTL { arguments += ["--auth", "--token-ttl", "\(max(1, Int64(ttl / .seconds(1))))s"] }
        if let log { arguments += ["--log", log] }
        if forgetsUploads { arguments.append("--defect-forget-uploads") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        let child = try ChildProcess(process, what: "squall server", stop: stop)
        guard let line = ChildOutput.firstLine(of: output.fileHandleForReading, within: .seconds(10)),
            line.hasPrefix("http://")
        else {
            child.end(with: SIGKILL)
            throw HarnessError("squall server did not print its URL")
        }
        return (child, line)
    }
}

/// Reads a child's first output line with a deadline (the readiness signal of child processes).
enum ChildOutput {
    static func firstLine(of handle: FileHandle, within patience: Duration) -> String? {
        let deadline = ContinuousClock.now + patience
        var line: [UInt8] = []
        var byte: UInt8 = 0
        let descriptor = handle.fileDescriptor
        while ContinuousClock.now < deadline {
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let left = deadline - .now
            guard poll(&entry, 1, Int32(clamping: left.components.seconds * 1000 + 1)) > 0 else { continue }
            let count = read(descriptor, &byte, 1)
            if count < 0, errno == EINTR { continue }
            guard count == 1 else { return nil }
            if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
        }
        return nil
    }
}

/// One request to a loopback admin endpoint, answered in full (small bodies only).
enum AdminRequest {
    static func send(_ method: HTTPMethod, _ target: String, to address: String) throws -> [UInt8] {
        let socket = try TCPConnector.connect(to: SocketAddress(parsing: address))
        let stream = PlainStream(socket: socket)
        defer { stream.close() }
        try socket.setNonBlocking(true)
        let head = RequestHead(
            method: method, target: target, fields: ["Host": address, "Content-Length": "0", "Connection": "close"])
        do {
            let response = try HTTPClientStream(stream: stream).exchange(
                head, progressTimeout: .seconds(10), bodyLimit: .refuseOver(.max))
            guard (200..<300).contains(response.head.status) else {
                throw HarnessError("\(method) \(target) answered \(response.head.status)")
            }
            return response.body
        } catch let error as HTTPExchangeError where error.code == .closed {
            throw HarnessError("\(method) \(target): the connection closed early")
        }
    }
}
