extension LedgerEntry {
    private enum Key: String, CodingKey {
        case time, event, state, number, offset, length, location, status, error, newDestination, automatic, id
    }

    /// The `event` names, one per `LedgerEvent` case.
    public static let eventNames = [
        "state", "attempt", "resumed", "bytesSent", "uploadResource", "succeeded", "failed", "retried",
        "acknowledged", "serverResourceID",
    ]

    public init(from decoder: any Decoder) throws {
        let values = try decoder.container(keyedBy: Key.self)
        time = try values.decode(JobTime.self, forKey: .time)
        let name = try values.decode(String.self, forKey: .event)
        switch name {
        case "state": event = .state(try values.decode(JobState.self, forKey: .state))
        case "attempt": event = .attempt(number: try values.decode(Int.self, forKey: .number))
        case "resumed": event = .resumed(offset: try values.decode(Int64.self, forKey: .offset))
        case "bytesSent":
            event = .bytesSent(
                ByteRange(
                    offset: try values.decode(Int64.self, forKey: .offset),
                    length: try values.decode(Int64.self, forKey: .length)))
        case "uploadResource": event = .uploadResource(location: try values.decode(String.self, forKey: .location))
        case "succeeded": event = .succeeded(status: try values.decode(Int.self, forKey: .status))
        case "failed":
            event = .failed(
                error: try values.decode(JobError.self, forKey: .error),
                status: try values.decodeIfPresent(Int.self, forKey: .status))
        case "retried":
            event = .retried(
                number: try values.decode(Int.self, forKey: .number),
                newDestination: try values.decode(Bool.self, forKey: .newDestination))
        case "acknowledged": event = .acknowledged(automatic: try values.decode(Bool.self, forKey: .automatic))
        case "serverResourceID": event = .serverResourceID(try values.decode(String.self, forKey: .id))
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .event, in: values,
                debugDescription: "unknown ledger event \"\(name)\" (one of \(Self.eventNames.joined(separator: ", ")))"
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var values = encoder.container(keyedBy: Key.self)
        try values.encode(time, forKey: .time)
        switch event {
        case .state(let state):
            try values.encode("state", forKey: .event)
            try values.encode(state, forKey: .state)
        case .attempt(let number):
            try values.encode("attempt", forKey: .event)
            try values.encode(number, forKey: .number)
        case .resumed(let offset):
            try values.encode("resumed", forKey: .event)
            try values.encode(offset, forKey: .offset)
        case .bytesSent(let range):
            try values.encode("bytesSent", forKey: .event)
            try values.encode(range.offset, forKey: .offset)
            try values.encode(range.length, forKey: .length)
        case .uploadResource(let location):
            try values.encode("uploadResource", forKey: .event)
            try values.encode(location, forKey: .location)
        case .succeeded(let status):
            try values.encode("succeeded", forKey: .event)
            try values.encode(status, forKey: .status)
        case .failed(let error, let status):
            try values.encode("failed", forKey: .event)
            try values.encode(error, forKey: .error)
            try values.encode(status, forKey: .status)
        case .retried(let number, let newDestination):
            try values.encode("retried", forKey: .event)
            try values.encode(number, forKey: .number)
            try values.encode(newDestination, forKey: .newDestination)
        case .acknowledged(let automatic):
            try values.encode("acknowledged", forKey: .event)
            try values.encode(automatic, forKey: .automatic)
        case .serverResourceID(let id):
            try values.encode("serverResourceID", forKey: .event)
            try values.encode(id, forKey: .id)
        }
    }
}
