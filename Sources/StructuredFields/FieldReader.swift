/// A cursor over one field value that runs the parsing algorithms of RFC 8941 §4.2 for the containers:
/// Lists, Dictionaries, Inner Lists, Items, Parameters and keys. Bare Items are in `FieldReader+BareItems`.
///
/// Each `read…` function consumes what it parses from the front of the remaining input, exactly as the
/// RFC's algorithms consume `input_string`; errors carry the byte offset where the input went wrong.
struct FieldReader {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    var isAtEnd: Bool { index >= bytes.count }

    mutating func advance() {
        index += 1
    }

    /// Discards leading SP (not HTAB): at the ends of a field value, inside Inner Lists, after `;`.
    mutating func skipSpaces() {
        while peek == ASCII.space {
            advance()
        }
    }

    /// Discards leading OWS (SP and HTAB): around the commas of Lists and Dictionaries.
    mutating func skipOptionalWhitespace() {
        while peek == ASCII.space || peek == ASCII.tab {
            advance()
        }
    }

    func failure(_ code: StructuredFieldError.Code, _ detail: String, at offset: Int? = nil) -> StructuredFieldError {
        StructuredFieldError(code: code, detail: detail, offset: offset ?? index)
    }

    /// Checks that only SP remains after a top-level value (§4.2 steps 5–6).
    mutating func expectEnd() throws(StructuredFieldError) {
        skipSpaces()
        if let byte = peek {
            throw failure(.trailingCharacters, "unexpected \(ASCII.describe(byte)) after the value")
        }
    }

    /// Parsing a List (§4.2.1).
    mutating func readList() throws(StructuredFieldError) -> FieldList {
        var members: [ItemOrInnerList] = []
        while !isAtEnd {
            members.append(try readItemOrInnerList())
            guard try readMemberSeparator() else { break }
        }
        return FieldList(members)
    }

    /// Parsing a Dictionary (§4.2.2); a key without `=` is Boolean true with the parameters that follow.
    mutating func readDictionary() throws(StructuredFieldError) -> FieldDictionary {
        var dictionary = FieldDictionary()
        while !isAtEnd {
            let key = try readKey()
            if peek == ASCII.equals {
                advance()
                dictionary[key] = try readItemOrInnerList()
            } else {
                dictionary[key] = .item(Item(.boolean(true), parameters: try readParameters()))
            }
            guard try readMemberSeparator() else { break }
        }
        return dictionary
    }

    /// The OWS `,` OWS between List or Dictionary members: false at the end of input, true when a member
    /// follows; a `,` with nothing after it fails.
    private mutating func readMemberSeparator() throws(StructuredFieldError) -> Bool {
        skipOptionalWhitespace()
        guard let byte = peek else { return false }
        guard byte == ASCII.comma else {
            throw failure(.unexpectedCharacter, "expected ',' between members, found \(ASCII.describe(byte))")
        }
        advance()
        skipOptionalWhitespace()
        if isAtEnd {
            throw failure(.trailingComma, "a ',' must be followed by another member")
        }
        return true
    }

    /// Parsing an Item or Inner List (§4.2.1.1).
    mutating func readItemOrInnerList() throws(StructuredFieldError) -> ItemOrInnerList {
        peek == ASCII.openParen ? .innerList(try readInnerList()) : .item(try readItem())
    }

    /// Parsing an Inner List (§4.2.1.2): items separated by at least one SP, then `)` and parameters.
    mutating func readInnerList() throws(StructuredFieldError) -> InnerList {
        let start = index
        advance()
        var items: [Item] = []
        while true {
            skipSpaces()
            guard let byte = peek else {
                throw failure(.unexpectedEndOfInput, "the inner list opened at offset \(start) is not closed")
            }
            if byte == ASCII.closeParen {
                advance()
                return InnerList(items, parameters: try readParameters())
            }
            items.append(try readItem())
            if let next = peek, next != ASCII.space, next != ASCII.closeParen {
                throw failure(
                    .unexpectedCharacter, "expected ' ' or ')' in an inner list, found \(ASCII.describe(next))")
            }
        }
    }

    /// Parsing an Item (§4.2.3).
    mutating func readItem() throws(StructuredFieldError) -> Item {
        let bareItem = try readBareItem()
        return Item(bareItem, parameters: try readParameters())
    }

    /// Parsing Parameters (§4.2.3.2): `;` SP* key [ `=` bare-item ], repeated; a repeated key keeps its first
    /// position and its last value.
    mutating func readParameters() throws(StructuredFieldError) -> Parameters {
        var parameters = Parameters()
        while peek == ASCII.semicolon {
            advance()
            skipSpaces()
            let key = try readKey()
            var value = BareItem.boolean(true)
            if peek == ASCII.equals {
                advance()
                value = try readBareItem()
            }
            parameters[key] = value
        }
        return parameters
    }

    /// Parsing a Key (§4.2.3.3): lcalpha or `*`, then lcalpha, DIGIT, `_`, `-`, `.` or `*`.
    mutating func readKey() throws(StructuredFieldError) -> String {
        guard let first = peek else { throw failure(.unexpectedEndOfInput, "expected a key") }
        guard ASCII.isKeyStart(first) else {
            throw failure(.invalidKey, "a key must start with a lowercase letter or '*', not \(ASCII.describe(first))")
        }
        let start = index
        while let byte = peek, ASCII.isKeyCharacter(byte) {
            advance()
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }
}
