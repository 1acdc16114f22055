import ResumableUpload
import StructuredFields

/// Structured Field Values (RFC 8941): the input is a field value, parsed as an Item, a List and a Dictionary.
/// Checked:
///
/// - an accepted value serializes, its serialization parses back to the same value and serializes to the same text
///   (the canonical form is a fixed point);
/// - a refusal's offset lies inside the input;
/// - the typed accessors answer for every key of a Dictionary, and `Upload-Limit` (the resumable-upload draft's
///   Dictionary) read from the input writes a field that reads back to the same limits.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStructuredFields(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = fuzzBytes(data, size)
    check(bytes, parse: StructuredFieldParser.parseItem, serialize: StructuredFieldSerializer.serialize)
    check(bytes, parse: StructuredFieldParser.parseList, serialize: StructuredFieldSerializer.serialize)
    let dictionary = check(
        bytes, parse: StructuredFieldParser.parseDictionary, serialize: StructuredFieldSerializer.serialize)
    if let dictionary {
        for key in dictionary.keys { readAll(key, in: dictionary) }
    }
    checkUploadLimits(String(decoding: bytes, as: UTF8.self))
    return 0
}

/// Parses `bytes`; an accepted value must round-trip through its canonical serialization.
@discardableResult
private func check<Value: Equatable>(
    _ bytes: [UInt8], parse: ([UInt8]) throws(StructuredFieldError) -> Value,
    serialize: (Value) throws(StructuredFieldError) -> String
) -> Value? {
    let value: Value
    do {
        value = try parse(bytes)
    } catch {
        if let offset = error.offset {
            invariant((0...bytes.count).contains(offset), "\(error) at \(offset) of \(bytes.count) bytes")
        }
        return nil
    }
    do {
        let text = try serialize(value)
        let reread = try parse(Array(text.utf8))
        invariant(reread == value, "\(value) serializes as \(text), which parses as \(reread)")
        invariant(try serialize(reread) == text, "\(text) is not canonical")
    } catch {
        invariant(false, "\(value) does not round-trip: \(error)")
    }
    return value
}

private func readAll(_ key: String, in dictionary: FieldDictionary) {
    _ = try? dictionary.integer(key)
    _ = try? dictionary.decimal(key)
    _ = try? dictionary.string(key)
    _ = try? dictionary.token(key)
    _ = try? dictionary.byteSequence(key)
    _ = try? dictionary.boolean(key)
    guard let parameters = dictionary[key]?.parameters else { return }
    for name in parameters.keys { _ = try? parameters.integer(name) }
}

/// `Upload-Limit` as interop 8 reads it: what it writes reads back as the same field.
private func checkUploadLimits(_ text: String) {
    guard let version = InteropVersion(rawValue: 8), let limits = try? UploadLimits(field: text, version: version),
        let field = limits.field(for: version)
    else { return }
    let reread = try? UploadLimits(field: field, version: version)
    invariant(reread?.field(for: version) == field, "Upload-Limit \(limits) writes \(field), which reads differently")
}
