/// Parses request lines and status lines (RFC 9112 §3, §4), strictly: single spaces, `HTTP/D.D`, 3-digit status.
enum StartLine {
    /// `method SP request-target SP HTTP-version`, from `line` (without its CRLF) at stream `offset`.
    static func request(
        _ line: UnsafeBufferPointer<UInt8>, at offset: Int
    ) throws(HTTPWireError) -> (method: HTTPMethod, target: String, version: HTTPVersion) {
        var methodEnd = 0
        while methodEnd < line.count && ByteClass.isTokenChar(line[methodEnd]) { methodEnd += 1 }
        guard methodEnd > 0, methodEnd < line.count, line[methodEnd] == ByteClass.space else {
            throw HTTPWireError(.invalidMethod, "method is not a token followed by one space", offset: offset)
        }
        let versionStart = line.count - 8
        guard versionStart > methodEnd + 1, line[versionStart - 1] == ByteClass.space,
            let version = HTTPVersion.parse(UnsafeBufferPointer(rebasing: line[versionStart...]))
        else {
            throw HTTPWireError(.invalidVersion, "request line does not end with ' HTTP/D.D'", offset: offset)
        }
        try checkMajor(version, at: offset + versionStart)
        let methodBytes = UnsafeBufferPointer(rebasing: line[0..<methodEnd])
        let method = knownMethod(methodBytes) ?? HTTPMethod(rawValue: string(line, 0..<methodEnd))
        let target = UnsafeBufferPointer(rebasing: line[(methodEnd + 1)..<(versionStart - 1)])
        try checkTarget(
            target, isConnect: spells(methodBytes, "CONNECT"), isOptions: spells(methodBytes, "OPTIONS"),
            at: offset + methodEnd + 1)
        return (method, String(decoding: target, as: UTF8.self), version)
    }

    /// `HTTP-version SP 3DIGIT SP [reason-phrase]`; the space after the status may be missing when there is no
    /// reason phrase.
    static func status(
        _ line: UnsafeBufferPointer<UInt8>, at offset: Int
    ) throws(HTTPWireError) -> (version: HTTPVersion, status: Int, reason: String) {
        guard line.count >= 9, line[8] == ByteClass.space,
            let version = HTTPVersion.parse(UnsafeBufferPointer(rebasing: line[0..<8]))
        else {
            throw HTTPWireError(.invalidVersion, "status line does not start with 'HTTP/D.D '", offset: offset)
        }
        try checkMajor(version, at: offset)
        guard line.count >= 12, line[9] &- 0x31 < 9, ByteClass.isDigit(line[10]), ByteClass.isDigit(line[11]),
            line.count == 12 || line[12] == ByteClass.space
        else {
            throw HTTPWireError(.invalidStatus, "status code is not 3 digits in 100...999", offset: offset + 9)
        }
        let status = Int(line[9] &- 0x30) * 100 + Int(line[10] &- 0x30) * 10 + Int(line[11] &- 0x30)
        guard line.count > 13 else { return (version, status, "") }
        for index in 13..<line.count where !ByteClass.isVisible(line[index]) && !ByteClass.isWhitespace(line[index]) {
            let code: HTTPWireError.Code =
                line[index] == ByteClass.carriageReturn ? .bareCarriageReturn : .invalidReason
            throw HTTPWireError(code, "byte \(line[index]) in the reason phrase", offset: offset + index)
        }
        return (version, status, string(line, 13..<line.count))
    }

    static func checkMajor(_ version: HTTPVersion, at offset: Int) throws(HTTPWireError) {
        guard version.major == 1 else {
            throw HTTPWireError(.unsupportedVersion, "\(version) is not HTTP/1.x", offset: offset)
        }
    }

    /// RFC 9112 §3.2: origin-form, absolute-form, authority-form (CONNECT only) or asterisk-form (OPTIONS only),
    /// made of RFC 3986 characters.
    static func checkTarget(
        _ target: UnsafeBufferPointer<UInt8>, method: HTTPMethod, at offset: Int
    ) throws(HTTPWireError) {
        try checkTarget(target, isConnect: method == .connect, isOptions: method == .options, at: offset)
    }

    private static func checkTarget(
        _ target: UnsafeBufferPointer<UInt8>, isConnect: Bool, isOptions: Bool, at offset: Int
    ) throws(HTTPWireError) {
        guard let first = target.first else {
            throw HTTPWireError(.invalidTarget, "empty request-target", offset: offset)
        }
        for index in 0..<target.count where !ByteClass.isTargetChar(target[index]) {
            let error: HTTPWireError.Code =
                target[index] == ByteClass.carriageReturn ? .bareCarriageReturn : .invalidTarget
            throw HTTPWireError(error, "byte \(target[index]) in the request-target", offset: offset + index)
        }
        let valid: Bool
        if isConnect {
            valid = first != ByteClass.slash && first != ByteClass.star
        } else if first == ByteClass.star {
            valid = target.count == 1 && isOptions
        } else {
            valid = first == ByteClass.slash || hasScheme(target)
        }
        guard valid else {
            throw HTTPWireError(.invalidTarget, "request-target form does not suit the method", offset: offset)
        }
    }

    /// Whether `target` starts with `scheme ":"` (RFC 3986 §3.1), as an absolute-form target does.
    private static func hasScheme(_ target: UnsafeBufferPointer<UInt8>) -> Bool {
        guard (target[0] | 0x20) &- 0x61 < 26 else { return false }
        for byte in target.dropFirst() {
            if byte == ByteClass.colon { return true }
            let isSchemeChar =
                (byte | 0x20) &- 0x61 < 26 || ByteClass.isDigit(byte) || byte == 0x2B || byte == 0x2D || byte == 0x2E
            if !isSchemeChar { return false }
        }
        return false
    }

    /// The registered method spelled by `bytes`, made without decoding them.
    private static func knownMethod(_ bytes: UnsafeBufferPointer<UInt8>) -> HTTPMethod? {
        switch bytes.count {
        case 3: return spells(bytes, "GET") ? .get : spells(bytes, "PUT") ? .put : nil
        case 4: return spells(bytes, "POST") ? .post : spells(bytes, "HEAD") ? .head : nil
        case 5: return spells(bytes, "PATCH") ? .patch : spells(bytes, "TRACE") ? .trace : nil
        case 6: return spells(bytes, "DELETE") ? .delete : nil
        case 7: return spells(bytes, "OPTIONS") ? .options : spells(bytes, "CONNECT") ? .connect : nil
        default: return nil
        }
    }

    /// Whether `bytes` are exactly `word` (case-sensitive, as methods are).
    private static func spells(_ bytes: UnsafeBufferPointer<UInt8>, _ word: StaticString) -> Bool {
        guard bytes.count == word.utf8CodeUnitCount else { return false }
        for index in 0..<bytes.count where bytes[index] != word.utf8Start[index] {
            return false
        }
        return true
    }

    private static func string(_ line: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: line[range]), as: UTF8.self)
    }
}
