import ControlAPI
import FaultEngine
import HTTPWire
import SquallCore
import TestSupport

/// The control API's JSON input: the input is a request body, sent to every endpoint that reads one (native faults,
/// a fired action, a scenario; Toxiproxy proxies, populate, toxics, their updates) of a handler with a proxy `p`,
/// a toxic `t` and a live connection 1 (`FakeRuntime`). Checked:
///
/// - every answer has a status of 100 to 599, and a JSON answer parses as JSON;
/// - a refused request (4xx, 5xx) changes nothing: the Toxiproxy proxies and the native rules stay as they were;
/// - every rule accepted (native or a toxic mapped onto one) encodes and reads back the same (`FaultRule`'s promise).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzControlAPI(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let body = fuzzBytes(data, size)
    let runtime = FakeRuntime(connections: [
        LiveConnection(
            id: 1, proxy: "main", client: "127.0.0.1:1", age: 0, bytesUpstream: 0, bytesDownstream: 0,
            requests: 0)
    ])
    let handler = ControlAPIHandler()
    handler.attach(runtime)
    send(.post, "/proxies", #"{"name": "p", "listen": "127.0.0.1:0", "upstream": "127.0.0.1:9"}"#, to: handler)
    send(.post, "/proxies/p/toxics", #"{"name": "t", "type": "latency", "attributes": {"latency": 5}}"#, to: handler)
    let setUp = handler.rules(for: "p")
    for (method, target) in bodyEndpoints {
        let proxies = handler.proxies
        let rules = runtime.rules
        let status = send(method, target, body, to: handler)
        if status >= 400 {
            invariant(handler.proxies == proxies && runtime.rules == rules, "\(method) \(target) refused, changed")
        }
    }
    for rule in runtime.rules + handler.rules(for: "p") where !setUp.contains(rule) { checkRoundTrip(rule) }
    return 0
}

/// Every endpoint that reads a JSON body.
private let bodyEndpoints: [(HTTPMethod, String)] = [
    (.post, "/squall/faults"), (.post, "/squall/connections/1/fire"), (.post, "/squall/scenario"),
    (.post, "/proxies"), (.post, "/populate"), (.post, "/proxies/p"), (.post, "/proxies/p/toxics"),
    (.post, "/proxies/p/toxics/t"),
]

/// Sends one request and checks the answer's shape; returns its status.
@discardableResult
private func send(_ method: HTTPMethod, _ target: String, _ body: String, to handler: ControlAPIHandler) -> Int {
    send(method, target, Array(body.utf8), to: handler)
}

@discardableResult
private func send(_ method: HTTPMethod, _ target: String, _ body: [UInt8], to handler: ControlAPIHandler) -> Int {
    let head = RequestHead(method: method, target: target, fields: ["Host": "127.0.0.1", "Content-Type": "json"])
    let (response, content) = handler.handle(head, body: body)
    invariant((100...599).contains(response.status), "\(method) \(target) answered \(response.status)")
    if response.fields["Content-Type"]?.hasPrefix("application/json") == true {
        invariant((try? JSONValue.parse(content)) != nil, "\(method) \(target) answered JSON that does not parse")
    }
    return response.status
}
