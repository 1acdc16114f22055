/// One asset's uploads as the HTML report draws them, on the proxy's clock (microseconds since it started, as the
/// fault and event timelines): each request with the bytes the client sent in it, the offsets the server
/// acknowledged, and where the client resumed. Built from the transcript (`ScenarioOracle.UploadTimelines`).
public struct UploadTimeline: Sendable, Hashable {
    /// The asset's name (the creation's `X-Filename`), or the upload resource's path when no request named it.
    public var name: String
    /// The upload's whole length, when a request stated it.
    public var length: Int64?
    /// The upload resources (paths) its requests used, in order; a second one means the client started over.
    public var resources: [String]
    /// Each request of it, in the order it began.
    public var requests: [RequestSpan]
    /// The offsets the server acknowledged: a 104's, a HEAD's, a final response's, a 409's `Upload-Offset`.
    public var acknowledged: [OffsetMark]
    /// Where the client resumed (an append's first byte, at its start), or started over (a new creation, at 0).
    public var resumes: [OffsetMark]

    public init(
        name: String, length: Int64? = nil, resources: [String] = [], requests: [RequestSpan] = [],
        acknowledged: [OffsetMark] = [], resumes: [OffsetMark] = []
    ) {
        self.name = name
        self.length = length
        self.resources = resources
        self.requests = requests
        self.acknowledged = acknowledged
        self.resumes = resumes
    }

    /// The connections its requests went on (the faults drawn on its chart are those of these connections).
    public var connections: Set<Int> { Set(requests.map(\.connection)) }
}

/// One request of an upload: when it began and ended, its method and final status, and the bytes sent in it.
public struct RequestSpan: Sendable, Hashable {
    public var connection: Int
    public var exchange: Int
    public var method: String
    /// The final response's status; nil when none came (the connection was cut, or the run ended).
    public var status: Int?
    /// The proxy answered it (a `respond` or `expire-auth` fault), not the server.
    public var answeredByProxy: Bool
    public var startMicroseconds: Int64
    public var endMicroseconds: Int64
    /// The upload offset of the body's first byte, for a request that carries upload content.
    public var startOffset: Int64?
    /// The upload offset the body had reached over time (as the proxy read it from the client), thinned to a few
    /// dozen points.
    public var sent: [OffsetMark]
    /// The upload offset the body had reached on the server's side over time: written to the upstream's socket, at
    /// wire time (a bandwidth or latency fault shows here as a slope), thinned the same way.
    public var forwarded: [OffsetMark]

    public init(
        connection: Int, exchange: Int, method: String, status: Int?, answeredByProxy: Bool,
        startMicroseconds: Int64, endMicroseconds: Int64, startOffset: Int64?, sent: [OffsetMark] = [],
        forwarded: [OffsetMark] = []
    ) {
        self.connection = connection
        self.exchange = exchange
        self.method = method
        self.status = status
        self.answeredByProxy = answeredByProxy
        self.startMicroseconds = startMicroseconds
        self.endMicroseconds = endMicroseconds
        self.startOffset = startOffset
        self.sent = sent
        self.forwarded = forwarded
    }

    /// `PATCH 204`, `POST (no response)`, `HEAD 401 (proxy)`.
    public var label: String {
        method + " " + (status.map(String.init) ?? "(no response)") + (answeredByProxy ? " (proxy)" : "")
    }
}

/// An upload offset at a moment, with what it was (`104`, `HEAD 200`, `resumed`).
public struct OffsetMark: Sendable, Hashable {
    public var microseconds: Int64
    public var offset: Int64
    public var label: String

    public init(microseconds: Int64, offset: Int64, label: String) {
        self.microseconds = microseconds
        self.offset = offset
        self.label = label
    }
}
