/// Moves the runtime's listeners to follow a change of the Toxiproxy registry, before the change commits.
///
/// A proxy has a listener exactly when it is enabled. Comparing the registry before and after a change: an enabled
/// proxy that was deleted, disabled, or whose `listen` or `upstream` changed has its listener stopped; an enabled
/// proxy that is new, was re-enabled or changed gets one started, and its `listen` becomes the address bound
/// (`127.0.0.1:0` reads back as `127.0.0.1:40123`). Stops come before starts, so a proxy can rebind its own address.
///
/// When a start fails, every listener started within the change is stopped, the ones stopped are restarted on the
/// addresses they had (best effort: the old bound port is usually free again), and the error is thrown, so the
/// caller commits nothing.
struct ToxiproxyListeners {
    let runtime: any ProxyRuntime

    func follow(from before: ToxiproxyRegistry, to after: inout ToxiproxyRegistry) throws(ControlAPIError) {
        let stopped = before.proxies.values.filter { old in
            old.enabled && !Self.sameListener(old, after.proxies[old.name])
        }.sorted { $0.name < $1.name }
        let starting = after.proxies.values.filter { new in
            new.enabled && !Self.sameListener(new, before.proxies[new.name])
        }.sorted { $0.name < $1.name }
        for proxy in stopped { runtime.stopListener(proxy: proxy.name) }
        var started: [String] = []
        do {
            for proxy in starting {
                let bound = try runtime.startListener(proxy: proxy.name, listen: proxy.listen, upstream: proxy.upstream)
                started.append(proxy.name)
                after.setListen(bound, of: proxy.name)
            }
        } catch {
            for name in started { runtime.stopListener(proxy: name) }
            for proxy in stopped {
                _ = try? runtime.startListener(proxy: proxy.name, listen: proxy.listen, upstream: proxy.upstream)
            }
            throw error
        }
    }

    /// Whether `other` is enabled with the same listen and upstream addresses as `proxy`, so its listener stays.
    private static func sameListener(_ proxy: ToxiproxyProxy, _ other: ToxiproxyProxy?) -> Bool {
        guard let other else { return false }
        return other.enabled && other.listen == proxy.listen && other.upstream == proxy.upstream
    }
}
