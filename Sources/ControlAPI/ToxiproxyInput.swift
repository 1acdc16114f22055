/// A proxy as `POST /proxies`, `POST /proxies/{name}` and `POST /populate` receive it; every field optional so
/// that the registry can name what is missing and an update can leave fields alone.
struct ProxyInput: Decodable, Sendable {
    var name: String?
    var listen: String?
    var upstream: String?
    var enabled: Bool?
}

/// A toxic as `POST /proxies/{name}/toxics` receives it (an update reads only `toxicity` and `attributes`).
struct ToxicInput: Decodable, Sendable {
    var name: String?
    var type: String?
    var stream: String?
    var toxicity: Double?
    var attributes: [String: Int64]?
}
