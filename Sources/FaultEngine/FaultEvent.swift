import HTTPWire

/// What a connection's flow tells its `ConnectionFaults`, in the order it happens. Times are the driver's monotonic
/// clock, measured from the proxy's start (the fault code never reads a clock); connection ids are the driver's.
public enum FaultEvent: Sendable, Hashable {
    /// A client connection was accepted; `nth` counts accepted connections from 1.
    case connectionOpened(connection: Int, nth: Int, time: Duration)
    /// The connection ended (either side); its armed faults are dropped.
    case connectionClosed(connection: Int, time: Duration)
    /// A request head arrived from the client (before it is forwarded).
    case requestHead(connection: Int, head: RequestHead, time: Duration)
    /// `count` request body bytes arrived. `uploadOffset` is the upload's absolute offset of their first byte
    /// when known (the PATCH's `Upload-Offset` plus the bytes before them, or 0 plus them on a creation);
    /// `uploadLength` the upload's length when the request states it (`UploadRequestFacts.length`). Without it,
    /// the length learned for the request's resource is used for the request's resource from earlier heads.
    case requestBody(connection: Int, count: Int, uploadOffset: Int64?, uploadLength: Int64?, time: Duration)
    /// An interim (1xx) or final response head arrived from the server.
    case responseHead(connection: Int, head: ResponseHead, time: Duration)
    /// `count` response body bytes arrived from the server.
    case responseBody(connection: Int, count: Int, time: Duration)
    /// Time passed on one connection: its delayed triggers that are due fire (each connection asks for its own).
    case due(connection: Int, time: Duration)
}
