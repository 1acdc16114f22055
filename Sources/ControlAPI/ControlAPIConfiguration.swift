/// How the control API behaves: its optional bearer token, the largest request body it reads, and the version it
/// reports.
public struct ControlAPIConfiguration: Sendable, Hashable {
    /// The bearer token every request must carry as `Authorization: Bearer <token>` (RFC 6750 §2.1). Default nil:
    /// no authentication, for an API bound to loopback only.
    public var token: String?
    /// The largest request body read, in bytes; a larger one gets 413 and changes nothing. Default 1 MiB.
    public var maxBodyBytes: Int
    /// What `GET /version` reports. Default `2.9.0`, the Toxiproxy release whose API this subset follows.
    public var version: String
    /// The proxy's CA, served at `/ca.pem` and `/ca.mobileconfig` (without the token: a phone's browser sends
    /// none, and a CA certificate is public); nil (a plain proxy) answers them 404.
    public var device: DeviceProfile?

    public init(
        token: String? = nil, maxBodyBytes: Int = 1 << 20, version: String = "2.9.0", device: DeviceProfile? = nil
    ) {
        self.token = token
        self.maxBodyBytes = maxBodyBytes
        self.version = version
        self.device = device
    }
}
