import ChaosProxy
import ControlAPI
import Foundation
import SquallNet
import TestSupport
import Testing

/// Toxiproxy's own Python client (toxiproxy-python from PyPI, installed by Tools/setup.sh) drives the control
/// API unchanged: it creates a proxy, adds a latency toxic, and the added latency is observed.
@Suite struct ToxiproxyClientTests {
    static let script = """
        import socket, sys, threading, time
        from toxiproxy import Toxiproxy

        echo = socket.socket()
        echo.bind(("127.0.0.1", 0))
        echo.listen(16)

        def pump(connection):
            while True:
                data = connection.recv(65536)
                if not data:
                    break
                connection.sendall(data)
            connection.close()

        def serve():
            while True:
                connection, _ = echo.accept()
                threading.Thread(target=pump, args=(connection,), daemon=True).start()

        threading.Thread(target=serve, daemon=True).start()
        server = Toxiproxy()
        server.update_api_consumer(sys.argv[1], int(sys.argv[2]))
        proxy = server.create(upstream="127.0.0.1:%d" % echo.getsockname()[1], name="echo")
        host, port = proxy.listen.rsplit(":", 1)

        def round_trip():
            stream = socket.create_connection((host, int(port)), timeout=10)
            stream.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            best = None
            for _ in range(5):
                start = time.monotonic()
                stream.sendall(b"ping")
                received = b""
                while len(received) < 4:
                    received += stream.recv(4)
                elapsed = time.monotonic() - start
                best = elapsed if best is None else min(best, elapsed)
            stream.close()
            return best

        base = round_trip()
        proxy.add_toxic(type="latency", attributes={"latency": 300, "jitter": 0})
        names = sorted(proxy.toxics().keys())
        slowed = round_trip()
        proxy.destroy_toxic("latency_downstream")
        after = round_trip()
        print("port=%s" % port)
        print("toxics=%s" % ",".join(names))
        print("base_ms=%.1f" % (base * 1000))
        print("slowed_ms=%.1f" % (slowed * 1000))
        print("after_ms=%.1f" % (after * 1000))
        proxy.destroy()
        print("proxies=%d" % len(server.proxies()))
        """

    @Test func toxiproxyPythonCreatesAProxyAndALatencyToxic() throws {
        let fixture = try ProxyFixture()
        let handler = ControlAPIHandler { [weak proxy = fixture.proxy] _ in proxy?.toxiproxyRulesChanged() }
        handler.attach(fixture.proxy)
        fixture.proxy.useToxiproxyRules(from: handler)
        let api = try ControlServer(address: SocketAddress(parsing: "127.0.0.1:0"), handler: handler)
        defer { api.stop() }
        let scriptPath = try fixture.folder.write(Self.script, to: "toxiproxy_client.py")
        let output = try PythonTool.run([scriptPath, "127.0.0.1", String(api.address.port)], needs: "toxiproxy-python")
        let values = Dictionary(
            output.split(separator: "\n").compactMap { line -> (String, String)? in
                let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
                return parts.count == 2 ? (parts[0], parts[1]) : nil
            }, uniquingKeysWith: { _, last in last })
        #expect(values["toxics"] == "latency_downstream", "\(output)")
        #expect(values["port"].flatMap { Int($0) }.map { $0 > 0 } == true)
        let base = try #require(values["base_ms"].flatMap(Double.init))
        let slowed = try #require(values["slowed_ms"].flatMap(Double.init))
        let after = try #require(values["after_ms"].flatMap(Double.init))
        // Every round trip waits for the 300 ms toxic on the way back; removing it restores the speed.
        #expect(slowed - base >= 290)
        #expect(after < 290)
        #expect(values["proxies"] == "0")
    }
}
