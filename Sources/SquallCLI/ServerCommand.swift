import ResumableUpload
import SquallCore
import SquallNet
import TLSKit
import UploadServer

/// `squall server`: runs the reference resumable-upload server until SIGINT or SIGTERM.
enum ServerCommand: Subcommand {
    static let spec = CommandSpec(
        path: ["server"],
        summary: "Run the reference resumable-upload server (interop 3 to 10) until SIGINT or SIGTERM.",
        usage:
            "[--listen ADDR] [--tls [--ca DIR]] [--store DIR] [--log FILE] [--interop LIST] [--max-size SIZE]"
            + " [--head-timeout D] [--idle-timeout D] [--max-connections N] ...",
        options: [
            .value("--listen", "ADDR", help: "Address to listen on. Default 127.0.0.1:0 (a free port)."),
            .flag("--tls", help: "Serve HTTPS with leaves minted per SNI name by the local CA."),
            .value("--ca", "DIR", help: "The CA folder for --tls (default: $SQUALL_CA_DIR, else ~/.squall/ca)."),
            .value("--store", "DIR", help: "The upload store's folder. Default: a fresh temporary folder."),
            .value("--log", "FILE", help: "Append a JSON Lines request log to FILE."),
            .flag(
                "--defect-forget-uploads",
                help: "A defect, for negative controls only: delete the store's uploads at start (lost state)."),
            .value(
                "--interop", "LIST",
                help:
                    "Interop versions served resumably, e.g. 6,8 or 3-10,final (final: requests without the field). Default 3-10."
            ),
            .value("--max-size", "SIZE", help: "Largest upload (Upload-Limit max-size). Default: no limit."),
            .value("--max-append-size", "SIZE", help: "Largest content per request (max-append-size)."),
            .value(
                "--min-append-size", "SIZE",
                help: "Smallest content of a request that does not complete its upload (min-append-size)."),
            .value("--max-age", "DURATION", help: "Lifetime of an upload, e.g. 30s, 10m, 1h. Default: unlimited."),
            .value(
                "--resumable", "on|off", help: "Offer resumable uploads at all (off: OPTIONS gets 501). Default on."),
            .value(
                "--progress-interval", "SIZE",
                help: "Bytes between progress 104s (interop 5+); 0 for none. Default 1MiB."),
            .value(
                "--progress-limit", "N|none",
                help: "Most progress 104s per request; none for no limit. Default 3 (see below)."),
            .value(
                "--progress-spacing", "DURATION",
                help: "Least time between progress 104s (and from the request's start); 0s for none. Default 1s."),
            .flag("--auth", help: "Require bearer tokens from POST /_squall/token on every upload request."),
            .value("--token-ttl", "DURATION", help: "Lifetime of a token (needs --auth). Default 1h."),
            .value(
                "--retention", "DURATION",
                help: "How long completed and cancelled uploads stay answerable. Default 1d."),
            .value(
                "--http2", "on|off",
                help: "Serve HTTP/2 too: ALPN h2 over TLS, prior knowledge over cleartext. Default on."),
        ] + ListenerLimitsOption.specs(defaults: UploadServerConfiguration.defaultLimits),
        discussion: """
            Prints the base URL (e.g. http://127.0.0.1:40123) on the first line of stdout and the store folder on
            the second. Creations go to /upload, upload resources live at /upload/<id>, and GET /_squall/uploads
            lists the store as JSON. Sizes are bytes or take a unit (512KiB, 8MiB, 1GB); durations take us, ms, s,
            m, h or d (250ms, 30s, 10m).

            Progress 104s (Upload-Offset while a body streams) go out every --progress-interval bytes, at most
            --progress-limit per request and --progress-spacing apart (from the request's start). The defaults keep
            a request within five informational responses, the most Go's net/http accepts before Go 1.24 (it fails
            with "too many 1xx informational responses"): a creation's 104, a 100 Continue when the client expects
            one, and three progress 104s; a request that takes under a second gets none.

            Without --auth requests are anonymous. With --auth, POST /_squall/token?principal=NAME answers a bearer
            token (JSON access_token); upload requests without a valid one get 401 with WWW-Authenticate, an upload
            belongs to the principal that created it (others get 404), and POST /_squall/expire-tokens expires every
            token issued so far. Without --store the store is a temporary folder, removed when the server stops
            (or fails to start); a --store folder is never removed. On SIGINT or SIGTERM the open connections are
            shut down (every byte a body delivered is synced and stays resumable) before the server exits.

            Limits: a connection's first request head must be whole within --head-timeout of the accept (the TLS
            handshake included; a later head within as long of its first byte), else 408 and the connection closes
            (a TLS handshake still unfinished closes without a byte); a connection silent for --idle-timeout
            between requests closes, and a body silent as long counts as interrupted (its bytes stay); a
            connection over --max-connections gets 503 with Connection: close.

            With --http2 on, a client that offers h2 in ALPN (TLS), or begins with the HTTP/2 preface (cleartext,
            prior knowledge), is served HTTP/2: each stream one request, uploads side by side on one connection (at
            most 100 streams at once, a 1 MiB window each), progress 104s as HEADERS frames; a connection without an
            open stream for --idle-timeout gets GOAWAY and closes.
            """,
        stopsOnSignal: true
    )

    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
        var configuration = try makeConfiguration(arguments, environment: context.environment)
        let stop = context.stop
        // Without --store, a store of its own that goes with the server: after a stop and after a failed start.
        let temporary =
            try configuration.storeDirectory == nil
            ? TemporaryFolder(prefix: "squall-store-", what: "temporary store", stop: stop) : nil
        defer { temporary?.remove() }
        configuration.storeDirectory = configuration.storeDirectory ?? temporary?.path
        let server = try UploadServer(configuration: configuration)
        context.console.print(server.url)
        context.console.print(server.storeDirectory)
        if let directory = configuration.certificateAuthorityDirectory,
            let warning = (try? CertificateAuthority.load(directory: directory))?.keyExposure
        {
            context.console.printError("squall server: warning: \(warning)")
        }
        stop.waitUntilRequested()
        server.stop()
        stop.noteStopped("the server at \(server.url)")
        if temporary == nil { stop.noteKept("the store \(server.storeDirectory)") }
        if let log = configuration.logPath { stop.noteKept("the log \(log)") }
        return 0
    }

    /// The server configuration the flags describe; a bad value is a `UsageError` (exit status 2).
    static func makeConfiguration(_ arguments: ParsedArguments, environment: [String: String]) throws(UsageError)
        -> UploadServerConfiguration
    {
        var configuration = UploadServerConfiguration(storeDirectory: arguments["--store"], logPath: arguments["--log"])
        configuration.defectForgetsUploadsAtStart = arguments.has("--defect-forget-uploads")
        if let listen = arguments["--listen"] {
            guard let address = try? SocketAddress(parsing: listen) else {
                throw UsageError("--listen must be HOST:PORT such as 127.0.0.1:8080, not '\(listen)'", command: path)
            }
            configuration.listenAddress = address
        }
        if arguments.has("--tls") {
            configuration.certificateAuthorityDirectory =
                try arguments["--ca"].map { directory throws(UsageError) in
                    try CAFolderOption.check(directory, option: "--ca", command: path)
                } ?? defaultCADirectory(environment)
        } else if arguments["--ca"] != nil {
            throw UsageError("--ca needs --tls", command: path)
        }
        configuration.uploadProtocol = try uploadProtocol(arguments)
        configuration.limits = try ListenerLimitsOption.parse(
            arguments, defaults: UploadServerConfiguration.defaultLimits, command: path)
        if let retention = arguments["--retention"] {
            configuration.completedRetention = try seconds(retention, option: "--retention")
        }
        let lifetime = try arguments["--token-ttl"].map { text throws(UsageError) in
            try seconds(text, option: "--token-ttl")
        }
        let http2 = arguments["--http2"] ?? "on"
        guard http2 == "on" || http2 == "off" else {
            throw UsageError("--http2 must be on or off, not '\(http2)'", command: path)
        }
        configuration.http2 = http2 == "on"
        if arguments.has("--auth") {
            configuration.authentication = AuthenticationConfiguration(tokenLifetime: lifetime ?? 3600)
        } else if lifetime != nil {
            throw UsageError("--token-ttl needs --auth", command: path)
        }
        return configuration
    }

    private static var path: [String] { spec.path }

    private static func uploadProtocol(_ arguments: ParsedArguments) throws(UsageError) -> UploadProtocolConfiguration {
        var rules = UploadProtocolConfiguration()
        if let list = arguments["--interop"] { rules.versions = Set(try InteropOption.list(list, command: path)) }
        rules.limits.maxSize = try size(arguments, "--max-size")
        rules.limits.maxAppendSize = try size(arguments, "--max-append-size")
        rules.limits.minAppendSize = try size(arguments, "--min-append-size")
        rules.limits.maxAge = try arguments["--max-age"].map { text throws(UsageError) in
            try seconds(text, option: "--max-age")
        }
        if let interval = try size(arguments, "--progress-interval") { rules.progressInterval = interval }
        if let limit = arguments["--progress-limit"] { rules.progressLimit = try progressLimit(limit) }
        if let spacing = arguments["--progress-spacing"] {
            rules.progressSpacing = try DurationOption.parse(spacing, option: "--progress-spacing", command: path)
        }
        switch arguments["--resumable"] {
        case nil, "on": rules.resumable = true
        case "off": rules.resumable = false
        case let other?: throw UsageError("--resumable must be on or off, not '\(other)'", command: path)
        }
        return rules
    }

    /// `--progress-limit`: a whole number of 104s per request, or `none`.
    private static func progressLimit(_ text: String) throws(UsageError) -> Int? {
        if text == "none" { return nil }
        guard let limit = Int(text), limit >= 0 else {
            throw UsageError(
                "--progress-limit must be a number of progress 104s per request such as 3, or none, not '\(text)'",
                command: path)
        }
        return limit
    }

    private static func size(_ arguments: ParsedArguments, _ option: String) throws(UsageError) -> Int64? {
        guard let text = arguments[option] else { return nil }
        return Int64(try ByteSizeOption.parse(text, option: option, command: path))
    }

    /// Whole seconds of a duration flag (`30s`, `10m`, `1h`, `2d`, `500ms`; see `DurationOption.seconds`).
    static func seconds(_ text: String, option: String) throws(UsageError) -> Int64 {
        try DurationOption.seconds(text, option: option, command: path)
    }
}
