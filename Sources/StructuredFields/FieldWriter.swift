/// Runs the serialization algorithms of RFC 8941 §4.1, appending to `output` and checking every key and
/// Bare Item against the RFC's limits.
struct FieldWriter {
    private(set) var output = ""

    /// The serialized form of a value for `description`, or an explanation of why it has none.
    static func render(_ value: some FieldWritable) -> String {
        var writer = FieldWriter()
        do {
            try value.write(to: &writer)
            return writer.output
        } catch {
            return "<not serializable: \(error.detail)>"
        }
    }

    /// Serializing a List (§4.1.1): members joined by `, `.
    mutating func write(_ list: FieldList) throws(StructuredFieldError) {
        for (position, member) in list.members.enumerated() {
            if position > 0 { output += ", " }
            try write(member)
        }
    }

    /// Serializing a Dictionary (§4.1.2): `key=member`, or `key;params` when the member is the Boolean true.
    mutating func write(_ dictionary: FieldDictionary) throws(StructuredFieldError) {
        for (position, (key, member)) in dictionary.enumerated() {
            if position > 0 { output += ", " }
            try writeKey(key)
            if case .item(let item) = member, item.bareItem == .boolean(true) {
                try write(item.parameters)
            } else {
                output += "="
                try write(member)
            }
        }
    }

    mutating func write(_ member: ItemOrInnerList) throws(StructuredFieldError) {
        switch member {
        case .item(let item): try write(item)
        case .innerList(let list): try write(list)
        }
    }

    /// Serializing an Inner List (§4.1.1.1): `(` items joined by SP `)` then parameters.
    mutating func write(_ innerList: InnerList) throws(StructuredFieldError) {
        output += "("
        for (position, item) in innerList.items.enumerated() {
            if position > 0 { output += " " }
            try write(item)
        }
        output += ")"
        try write(innerList.parameters)
    }

    /// Serializing an Item (§4.1.3).
    mutating func write(_ item: Item) throws(StructuredFieldError) {
        try write(item.bareItem)
        try write(item.parameters)
    }

    /// Serializing Parameters (§4.1.1.2): `;key`, then `=value` unless the value is the Boolean true.
    mutating func write(_ parameters: Parameters) throws(StructuredFieldError) {
        for (key, value) in parameters {
            output += ";"
            try writeKey(key)
            if value != .boolean(true) {
                output += "="
                try write(value)
            }
        }
    }

    /// Serializing a Key (§4.1.1.3).
    private mutating func writeKey(_ key: String) throws(StructuredFieldError) {
        guard let first = key.utf8.first, ASCII.isKeyStart(first), key.utf8.allSatisfy(ASCII.isKeyCharacter) else {
            throw StructuredFieldError(code: .invalidKey, detail: "\"\(key)\" is not a valid key")
        }
        output += key
    }

    /// Serializing a Bare Item (§4.1.3.1).
    mutating func write(_ bareItem: BareItem) throws(StructuredFieldError) {
        switch bareItem {
        case .integer(let value): try writeInteger(value)
        case .decimal(let value): try writeDecimal(value)
        case .string(let value): try writeString(value)
        case .token(let value): try writeToken(value)
        case .byteSequence(let value): output += ":" + Base64.encode(value) + ":"
        case .boolean(let value): output += value ? "?1" : "?0"
        }
    }

    /// Serializing an Integer (§4.1.4).
    private mutating func writeInteger(_ value: Int64) throws(StructuredFieldError) {
        guard (-999_999_999_999_999...999_999_999_999_999).contains(value) else {
            throw StructuredFieldError(code: .integerOutOfRange, detail: "\(value) has more than 15 digits")
        }
        output += String(value)
    }

    /// Serializing a Decimal (§4.1.5); rounding to three fractional digits happened when it was built.
    private mutating func writeDecimal(_ value: StructuredDecimal) throws(StructuredFieldError) {
        guard value.thousandths.magnitude < 1_000_000_000_000_000 else {
            throw StructuredFieldError(code: .decimalOutOfRange, detail: "\(value) has more than 12 integer digits")
        }
        output += value.description
    }

    /// Serializing a String (§4.1.6): printable ASCII only, `"` and `\` escaped.
    private mutating func writeString(_ value: String) throws(StructuredFieldError) {
        if let bad = value.unicodeScalars.first(where: { !$0.isASCII || !ASCII.isPrintable(UInt8($0.value)) }) {
            let shown = "U+" + String(bad.value, radix: 16, uppercase: true)
            throw StructuredFieldError(code: .invalidString, detail: "\(shown) is not printable ASCII")
        }
        output += "\""
        for character in value.unicodeScalars {
            if character == "\"" || character == "\\" { output += "\\" }
            output.unicodeScalars.append(character)
        }
        output += "\""
    }

    /// Serializing a Token (§4.1.7).
    private mutating func writeToken(_ value: String) throws(StructuredFieldError) {
        guard let first = value.utf8.first, ASCII.isTokenStart(first),
            value.utf8.dropFirst().allSatisfy(ASCII.isTokenCharacter)
        else {
            throw StructuredFieldError(code: .invalidToken, detail: "\"\(value)\" is not a valid Token")
        }
        output += value
    }
}

/// A value `FieldWriter` can serialize.
protocol FieldWritable {
    func write(to writer: inout FieldWriter) throws(StructuredFieldError)
}

extension BareItem: FieldWritable {
    func write(to writer: inout FieldWriter) throws(StructuredFieldError) { try writer.write(self) }
}

extension Item: FieldWritable {
    func write(to writer: inout FieldWriter) throws(StructuredFieldError) { try writer.write(self) }
}

extension InnerList: FieldWritable {
    func write(to writer: inout FieldWriter) throws(StructuredFieldError) { try writer.write(self) }
}

extension ItemOrInnerList: FieldWritable {
    func write(to writer: inout FieldWriter) throws(StructuredFieldError) { try writer.write(self) }
}

extension Parameters: FieldWritable {
    func write(to writer: inout FieldWriter) throws(StructuredFieldError) { try writer.write(self) }
}

extension FieldList: FieldWritable {
    func write(to writer: inout FieldWriter) throws(StructuredFieldError) { try writer.write(self) }
}

extension FieldDictionary: FieldWritable {
    func write(to writer: inout FieldWriter) throws(StructuredFieldError) { try writer.write(self) }
}
