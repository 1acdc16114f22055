import HTTPWire
import StructuredFields

/// Typed reads of the request fields of draft-ietf-httpbis-resumable-upload, each parsed as the structured field
/// the draft defines; a malformed value is a 400 naming the field.
enum UploadFields {
    static let offset = "Upload-Offset"
    static let length = "Upload-Length"
    static let contentLength = "Content-Length"
    static let contentType = "Content-Type"
    static let transferEncoding = "Transfer-Encoding"
    static let idempotencyKey = "Idempotency-Key"
    static let location = "Location"
    static let cacheControl = "Cache-Control"
    static let resourceID = "x-server-resource-id"
    /// The media type of an append's content (-04, interop 6); it takes no parameters.
    static let partialUpload = "application/partial-upload"

    /// `Upload-Offset` or `Upload-Length`: a non-negative sf-Integer, nil when absent.
    static func size(_ name: String, in fields: HTTPFields) throws(UploadProtocolError) -> Int64? {
        guard let item = try item(name, in: fields) else { return nil }
        guard let value = item.integer else { throw .malformed(name, "expected an Integer, got \(item.bareItem.kind)") }
        guard value >= 0 else { throw .malformed(name, "must not be negative") }
        return value
    }

    /// Whether the request says it completes the upload, from `Upload-Complete` (or the inverted
    /// `Upload-Incomplete` in interop 3), an sf-Boolean; nil when absent.
    static func completion(in fields: HTTPFields, version: InteropVersion) throws(UploadProtocolError) -> Bool? {
        let name = version.completionFieldName
        guard let item = try item(name, in: fields) else { return nil }
        guard let flag = item.boolean else { throw .malformed(name, "expected a Boolean, got \(item.bareItem.kind)") }
        return flag != version.completionFieldIsInverted
    }

    /// `Idempotency-Key` (draft-ietf-httpapi-idempotency-key-header): an sf-String, nil when absent.
    static func idempotencyKey(in fields: HTTPFields) throws(UploadProtocolError) -> String? {
        guard let item = try item(idempotencyKey, in: fields) else { return nil }
        guard let key = item.string else {
            throw .malformed(idempotencyKey, "expected a String, got \(item.bareItem.kind)")
        }
        return key
    }

    /// `Content-Length` (RFC 9110 §8.6): digits; nil when absent or when the body is chunked.
    static func contentLength(in fields: HTTPFields) throws(UploadProtocolError) -> Int64? {
        if fields.contains(transferEncoding) { return nil }
        let values = fields.listValues(for: contentLength)
        guard let first = values.first else { return nil }
        guard values.allSatisfy({ $0 == first }), first.utf8.allSatisfy({ (48...57).contains($0) }),
            let length = Int64(first)
        else { throw .malformed(contentLength, "expected one decimal length") }
        return length
    }

    /// Whether `Content-Type` is `application/partial-upload` (ignoring case and surrounding spaces).
    static func isPartialUpload(_ fields: HTTPFields) -> Bool {
        guard let value = fields[contentType] else { return false }
        let trimmed = value.utf8.drop { $0 == 32 || $0 == 9 }.reversed().drop { $0 == 32 || $0 == 9 }.reversed()
        return String(decoding: trimmed, as: UTF8.self).lowercased() == partialUpload
    }

    private static func item(_ name: String, in fields: HTTPFields) throws(UploadProtocolError) -> Item? {
        try parsed(name, in: fields) { lines throws(StructuredFieldError) in
            try StructuredFieldParser.parseItem(lines: lines)
        }
    }

    /// The sf-Dictionary field `name` (an RFC 9530 digest field), nil when absent.
    static func dictionary(_ name: String, in fields: HTTPFields) throws(UploadProtocolError) -> FieldDictionary? {
        try parsed(name, in: fields) { lines throws(StructuredFieldError) in
            try StructuredFieldParser.parseDictionary(lines: lines)
        }
    }

    /// Field `name`'s lines parsed by `parse`, nil when absent; a parse failure is a 400 naming the field.
    private static func parsed<Value>(
        _ name: String, in fields: HTTPFields, _ parse: ([String]) throws(StructuredFieldError) -> Value
    ) throws(UploadProtocolError) -> Value? {
        let lines = fields.values(for: name)
        guard !lines.isEmpty else { return nil }
        do {
            return try parse(lines)
        } catch {
            throw .malformed(name, error.description)
        }
    }
}
