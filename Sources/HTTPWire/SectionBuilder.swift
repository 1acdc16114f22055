/// The head or trailer section being parsed line by line (RFC 9112 §2.1, §5, §7.1.2): its start line, where its
/// fields sit in the section's bytes, and what they say about framing.
struct SectionBuilder {
    enum Start {
        case none
        case request(method: HTTPMethod, target: String, version: HTTPVersion)
        case response(version: HTTPVersion, status: Int, reason: String)
    }

    var startLine = Start.none
    var entries: [HTTPFields.Entry] = []
    var framing = FramingFields()

    /// Empties the builder for the next section, keeping its capacity.
    mutating func reset() {
        startLine = .none
        entries.removeAll(keepingCapacity: true)
        framing = FramingFields()
    }

    var hasStartLine: Bool {
        if case .none = startLine { return false }
        return true
    }

    /// Parses the start line of a request (server role) or a response (client role).
    mutating func addStartLine(
        _ line: UnsafeBufferPointer<UInt8>, role: HTTP1Parser.Role, at offset: Int
    ) throws(HTTPWireError) {
        switch role {
        case .server:
            let (method, target, version) = try StartLine.request(line, at: offset)
            startLine = .request(method: method, target: target, version: version)
        case .client:
            let (version, status, reason) = try StartLine.status(line, at: offset)
            startLine = .response(version: version, status: status, reason: reason)
        }
    }

    /// Parses one field line that starts `position` bytes into the section, noting what it says about framing
    /// when `recordsFraming` (heads, not trailers); a section has at most `maxCount` fields.
    mutating func addField(
        _ line: UnsafeBufferPointer<UInt8>, position: Int, recordsFraming: Bool, maxCount: Int, at offset: Int
    ) throws(HTTPWireError) {
        guard entries.count < maxCount else {
            throw HTTPWireError(.tooManyFields, "more than \(maxCount) fields", offset: offset)
        }
        let (name, value) = try FieldLine.split(line, at: offset)
        if recordsFraming {
            try framing.record(
                name: UnsafeBufferPointer(rebasing: line[name]), value: UnsafeBufferPointer(rebasing: line[value]),
                at: offset)
        }
        entries.append(
            HTTPFields.Entry(
                nameStart: position + name.lowerBound, nameEnd: position + name.upperBound,
                valueStart: position + value.lowerBound, valueEnd: position + value.upperBound))
    }
}
