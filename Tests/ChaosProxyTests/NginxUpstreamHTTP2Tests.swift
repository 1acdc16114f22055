import ChaosProxy
import FaultEngine
import Foundation
import Glibc
import ProxyTranscript
import SquallNet
import TLSKit
import TestSupport
import Testing
import UploadServer

/// An HTTP/2 upstream nobody here wrote: nginx (`listen … ssl http2`, proxying to the reference server over HTTP/1.1
/// with `proxy_request_buffering off`) as the proxy's upstream, chosen by ALPN (h2 to h2). curl uploads through the
/// proxy over HTTP/2; a `reset-stream` cuts the PATCH at 1 MiB, which resets its stream toward curl and toward
/// nginx; HEAD through the same chain finds the offset and a PATCH of the rest completes the upload.
///
/// nginx 1.22 cannot carry a 104 from its upstream (it takes the 104 for the final response and then fails the stream
/// with `PROTOCOL_ERROR`, without Squall too), so the upload is created at the server directly and the server sends no
/// progress 104s: what goes through nginx is what it can carry.
@Suite struct NginxUpstreamHTTP2Tests {
    /// nginx on a free port of 127.0.0.1 (nginx cannot be told port 0: a free one is asked of the kernel and handed
    /// over, tried again when another process took it meanwhile), until `stop`.
    final class Nginx {
        let port: UInt16
        private let process: Process

        init(folder: TLSFixtures.TemporaryDirectory, authority: CertificateAuthority, upstream: String) throws {
            let leaf = try authority.leaf(for: "localhost")
            let certificate = try folder.write(leaf.certificatePEM, to: "nginx-leaf.pem")
            let key = try folder.write(leaf.privateKeyPEM, to: "nginx-leaf-key.pem")
            for name in ["nginx-body", "nginx-proxy"] { mkdir(folder.file(name), 0o700) }
            var lastError = "not started"
            for _ in 0..<3 {
                let port = try Self.freePort()
                let configuration = try folder.write(
                    """
                    worker_processes 1;
                    daemon off;
                    pid \(folder.file("nginx.pid"));
                    error_log \(folder.file("nginx-error.log")) notice;
                    events { worker_connections 64; }
                    http {
                        access_log off;
                        client_body_temp_path \(folder.file("nginx-body"));
                        proxy_temp_path \(folder.file("nginx-proxy"));
                        fastcgi_temp_path \(folder.file("nginx-proxy"));
                        uwsgi_temp_path \(folder.file("nginx-proxy"));
                        scgi_temp_path \(folder.file("nginx-proxy"));
                        server {
                            listen 127.0.0.1:\(port) ssl http2;
                            ssl_certificate \(certificate);
                            ssl_certificate_key \(key);
                            client_max_body_size 0;
                            location / {
                                proxy_pass \(upstream);
                                proxy_http_version 1.1;
                                proxy_request_buffering off;
                                proxy_buffering off;
                            }
                        }
                    }
                    """, to: "nginx.conf")
                let process = Process()
                // Debian's nginx is in /usr/sbin, which a user's PATH may leave out.
                let binary = ["/usr/sbin/nginx", "/usr/local/sbin/nginx", "/usr/bin/nginx"].first {
                    FileManager.default.isExecutableFile(atPath: $0)
                }
                process.executableURL = URL(fileURLWithPath: binary ?? "/usr/bin/env")
                process.arguments =
                    (binary == nil ? ["nginx"] : []) + ["-c", configuration, "-e", folder.file("nginx-error.log")]
                process.standardInput = FileHandle.nullDevice
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                try process.run()
                if Self.accepts(port: port, while: process) {
                    self.port = port
                    self.process = process
                    return
                }
                if process.isRunning { process.terminate() }
                process.waitUntilExit()
                lastError = (try? String(contentsOfFile: folder.file("nginx-error.log"), encoding: .utf8)) ?? ""
            }
            throw NginxFailed(description: "nginx did not start: \(lastError)")
        }

        struct NginxFailed: Error, CustomStringConvertible {
            let description: String
        }

        func stop() {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }

        private static func freePort() throws -> UInt16 {
            // Closed when it goes away at the return; never accepted, so the port is free at once.
            try TCPListener("127.0.0.1:0").address.port
        }

        /// Whether nginx accepts connections on `port` (its readiness), asked until it does, exits, or 10 s pass.
        private static func accepts(port: UInt16, while process: Process) -> Bool {
            let deadline = ContinuousClock.now + .seconds(10)
            while process.isRunning && ContinuousClock.now < deadline {
                if let socket = try? TCPConnector.connect(
                    to: SocketAddress(host: "127.0.0.1", port: port), timeout: .seconds(1))
                {
                    socket.close()
                    return true
                }
                var pause = timespec(tv_sec: 0, tv_nsec: 10_000_000)
                nanosleep(&pause, nil)
            }
            return false
        }
    }

    @Test func curlResumesThroughTheProxyAndNginxOverHTTP2AfterAResetStream() throws {
        let folder = try TLSFixtures.TemporaryDirectory()
        var serverConfiguration = UploadServerConfiguration(storeDirectory: folder.file("store"))
        serverConfiguration.uploadProtocol.progressInterval = 0
        let server = try UploadServer(configuration: serverConfiguration)
        defer { server.stop() }
        let authority = try TLSFixtures.makeCertificateAuthority(in: folder)
        let nginx = try Nginx(folder: folder, authority: authority, upstream: server.url)
        defer { nginx.stop() }
        var configuration = ChaosProxyConfiguration(
            listen: try SocketAddress(parsing: "127.0.0.1:0"),
            upstream: try UpstreamTarget(parsing: "https://localhost:\(nginx.port)"))
        configuration.authority = authority
        configuration.upstreamTrust = .caFile(authority.certificatePath)
        configuration.http2 = true
        configuration.rules = [
            try FaultRule.parse(
                #"""
                {"name": "cancel", "match": {"method": "PATCH"}, "trigger": {"at-offset": "1MiB"},
                 "action": "reset-stream", "code": "CANCEL", "times": 1}
                """#)
        ]
        let proxy = try ChaosProxy(configuration: configuration)
        defer { proxy.stop() }

        let size = 3 << 20
        var content = [UInt8](repeating: 0, count: size)
        for index in content.indices { content[index] = UInt8(truncatingIfNeeded: index &* 31 &+ index >> 12) }
        let file = folder.file("photo.bin")
        try Data(content).write(to: URL(fileURLWithPath: file))
        // The upload, created at the server (its creation's 104 would not pass nginx).
        let created = try TLSFixtures.runTool(
            "curl",
            [
                "-sS", "-D", "-", "-o", "/dev/null", "-H", "Upload-Draft-Interop-Version: 8", "-H",
                "Upload-Complete: ?0", "-H", "Upload-Length: \(size)", "--data-binary", "", server.url + "/upload",
            ])
        let id = try #require(server.uploads().first?.id, "\(created.standardOutput)")
        let url = proxy.url + "/upload/" + id
        let common = [
            "-sS", "--http2", "--cacert", authority.certificatePath, "--max-time", "30", "-H",
            "Upload-Draft-Interop-Version: 8",
        ]
        let patch = ["-X", "PATCH", "-H", "Upload-Complete: ?1", "-H", "Content-Type: application/partial-upload"]

        let cut = try TLSFixtures.runTool(
            "curl", common + patch + ["-H", "Upload-Offset: 0", "-o", "/dev/null", "--data-binary", "@" + file, url])
        #expect(cut.status == 92, "\(cut.standardError)")
        #expect(cut.standardError.contains("CANCEL (err 8)"), "\(cut.standardError)")
        #expect(ProxyFaultTests.fired(proxy.transcript).map(\.rule) == ["cancel"])

        // HEAD through the chain: what reached the server before nginx saw the stream reset.
        let head = try TLSFixtures.runTool("curl", common + ["-I", url])
        #expect(head.standardOutput.hasPrefix("HTTP/2 204") || head.standardOutput.hasPrefix("HTTP/2 200"))
        let offsetLine = head.standardOutput.split(separator: "\r\n").first {
            $0.lowercased().hasPrefix("upload-offset: ")
        }
        let offset = try #require(offsetLine.flatMap { Int($0.dropFirst("upload-offset: ".count)) }, "\(head)")
        #expect(offset <= 1 << 20, "\(offset)")

        let rest = folder.file("rest.bin")
        try Data(content[offset...]).write(to: URL(fileURLWithPath: rest))
        let resumed = try TLSFixtures.runTool(
            "curl",
            common + patch + [
                "-H", "Upload-Offset: \(offset)", "-o", "/dev/null", "-w", "%{http_version} %{http_code}",
                "--data-binary", "@" + rest, url,
            ])
        #expect(resumed.standardOutput == "2 200", "\(resumed.standardError)")
        let record = try #require(server.uploads().first)
        #expect(record.complete && record.durableOffset == Int64(size))
        let stored = try Data(contentsOf: URL(fileURLWithPath: server.storeDirectory + "/" + id + "/data"))
        #expect(stored == Data(content))
        // The proxy's upstream leg spoke HTTP/2 to nginx (ALPN).
        let upstreamALPN = proxy.transcript.events.compactMap { event -> String? in
            if case .tlsEstablished(.upstream, let session) = event.kind { return session.alpn ?? "none" }
            return nil
        }
        #expect(!upstreamALPN.isEmpty && upstreamALPN.allSatisfy { $0 == "h2" }, "\(upstreamALPN)")
    }
}
