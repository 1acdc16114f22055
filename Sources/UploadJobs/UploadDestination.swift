/// The request a job uploads to (PhotoKit: the job's destination `URLRequest`): method, URL and header fields.
///
/// The fields carry what the server needs, e.g. `Authorization` and `X-Filename`; a retry may replace the whole
/// destination, e.g. to carry a refreshed token.
public struct UploadDestination: Hashable, Sendable, Codable {
    /// The request method, e.g. `POST`.
    public var method: String
    /// The absolute URL, e.g. `https://127.0.0.1:8443/upload`.
    public var url: String
    /// Header fields in order, names as given.
    public var headerFields: [HeaderField]

    public init(method: String = "POST", url: String, headerFields: [HeaderField] = []) {
        self.method = method
        self.url = url
        self.headerFields = headerFields
    }
}
