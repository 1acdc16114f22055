import HTTPExchange
import ProxyTranscript
import SquallNet

extension ProxyConnection {
    /// The relay of a connection whose client chose HTTP/2: an `HTTP2Front` until the client goes, each stream
    /// proxied by a `ProxyConnection` of its own (its own id, flow and thread) over one end of a socket pair. A
    /// stream's connection is listed and recorded as any other, its client named after the connection's
    /// (`127.0.0.1:50000 h2 stream 3`), and faults match it as they match a connection of this listener.
    func relayHTTP2(_ client: any ByteStream) {
        var plain = settings
        plain.clientTLS = nil
        plain.http2 = false
        let streamSettings = plain
        let scheme = settings.clientTLS == nil ? "http" : "https"
        let (shared, engine, parent, nth, listener) = (shared, engine, handle, nth, listenerName)
        let upstreamSpeaksHTTP2 =
            settings.upstreamHTTP2 == .on || (settings.upstreamHTTP2 == .auto && settings.upstream.tls)
        let sharedUpstream =
            upstreamSpeaksHTTP2 ? HTTP2Upstream(settings: streamSettings, capture: shared.capture) : nil
        defer { sharedUpstream?.close() }
        let front: HTTP2Front
        do {
            let wake = try WakeSignal()
            let record = { (id: Int, kind: TranscriptEvent.Kind) in
                shared.transcript.append(TranscriptEvent(time: shared.now, connection: id, kind: kind))
            }
            front = try HTTP2Front(
                client: client, parent: handle, idleTimeout: settings.limits.idleTimeout, capture: capture,
                wake: wake, record: record
            ) { end, stream in
                let id = shared.registry.nextID()
                let handle = ConnectionHandle(
                    id: id, listener: streamSettings.name, client: "\(parent.client) h2 stream \(stream)",
                    mode: streamSettings.mode.rawValue, frontWake: wake)
                let thread = ConnectionThread(name: "squall-proxy-h2-stream") {
                    shared.registry.insert(handle)
                    defer { shared.registry.remove(id) }
                    shared.counters.accepted.add(1, ordering: .relaxed)
                    var flow = streamSettings.flow(id: id, scheme: scheme)
                    flow.http2Stream = (parent.id, stream)
                    let connection = ProxyConnection(
                        stream: end, handle: handle, flow: flow, settings: streamSettings, engine: engine,
                        shared: shared)
                    connection.sharedUpstream = sharedUpstream
                    connection.run(nth: nth, listener: listener)
                }
                return (thread, handle)
            }
        } catch {
            return
        }
        front.run()
    }
}
