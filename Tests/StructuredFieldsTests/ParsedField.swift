import StructuredFields

/// A field value parsed as one of the three top-level types, so table-driven tests can treat them alike.
enum ParsedField: Hashable, Sendable {
    case item(Item)
    case list(FieldList)
    case dictionary(FieldDictionary)

    /// Which top-level type to parse a field value as.
    enum FieldType: String, Sendable, CaseIterable {
        case item
        case list
        case dictionary
    }

    /// Parses `bytes` as `type`.
    static func parse(_ bytes: [UInt8], as type: FieldType) throws(StructuredFieldError) -> ParsedField {
        switch type {
        case .item: .item(try StructuredFieldParser.parseItem(bytes))
        case .list: .list(try StructuredFieldParser.parseList(bytes))
        case .dictionary: .dictionary(try StructuredFieldParser.parseDictionary(bytes))
        }
    }

    /// Parses `text` as `type`.
    static func parse(_ text: String, as type: FieldType) throws(StructuredFieldError) -> ParsedField {
        try parse(Array(text.utf8), as: type)
    }

    /// The serialized form.
    func serialized() throws(StructuredFieldError) -> String {
        switch self {
        case .item(let item): try StructuredFieldSerializer.serialize(item)
        case .list(let list): try StructuredFieldSerializer.serialize(list)
        case .dictionary(let dictionary): try StructuredFieldSerializer.serialize(dictionary)
        }
    }
}

/// Shorthands for building expected values in tests.
enum Build {
    static func item(_ bareItem: BareItem, _ parameters: KeyValuePairs<String, BareItem> = [:]) -> Item {
        Item(bareItem, parameters: Parameters(parameters.map { ($0.key, $0.value) }))
    }

    static func member(_ bareItem: BareItem, _ parameters: KeyValuePairs<String, BareItem> = [:]) -> ItemOrInnerList {
        .item(item(bareItem, parameters))
    }

    static func inner(_ items: [Item], _ parameters: KeyValuePairs<String, BareItem> = [:]) -> ItemOrInnerList {
        .innerList(InnerList(items, parameters: Parameters(parameters.map { ($0.key, $0.value) })))
    }

    static func decimal(_ thousandths: Int64) -> BareItem {
        .decimal(StructuredDecimal(thousandths: thousandths))
    }
}
