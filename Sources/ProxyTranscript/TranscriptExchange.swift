import HTTPWire

/// One request and what answered it on a connection, gathered from the transcript: the request head, its
/// interim (1xx) responses in order, the final response, and byte totals of both bodies (the request's forwarded
/// and dropped apart).
///
/// A head is nil when it has not happened yet, or when the transcript's cap dropped it.
public struct TranscriptExchange: Sendable, Hashable {
    public var connection: Int
    /// Counts requests on the connection from 1.
    public var number: Int
    public var request: RequestHead?
    /// The request head the server got, when a fault changed it (`requestForwarded`); nil: `request`.
    public var forwardedRequest: RequestHead?
    /// The proxy answered the request itself (`proxyAnswered`): `response` is the proxy's, not the server's.
    public var answeredByProxy = false
    public var interims: [ResponseHead] = []
    public var response: ResponseHead?
    /// Request body bytes forwarded to the upstream (the sum of the kept `requestBody` ranges' lengths).
    public var requestBodyBytes: Int64 = 0
    /// Request body bytes read from the client and not forwarded (`requestBodyDropped`).
    public var droppedRequestBodyBytes: Int64 = 0
    /// Response body bytes recorded.
    public var responseBodyBytes: Int64 = 0
    /// The upload offsets the request body covered, where they were known: sorted, with overlapping and
    /// adjacent ranges merged (`0..<10` and `10..<20` become `0..<20`).
    public var uploadCoverage: [Range<Int64>] = []

    public init(connection: Int, number: Int) {
        self.connection = connection
        self.number = number
    }

    /// Merges `ranges` into the fewest sorted, disjoint, non-adjacent ranges covering the same offsets; empty
    /// ranges vanish.
    public static func merge(_ ranges: [Range<Int64>]) -> [Range<Int64>] {
        var merged: [Range<Int64>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) where !range.isEmpty {
            if let last = merged.last, range.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        return merged
    }
}
