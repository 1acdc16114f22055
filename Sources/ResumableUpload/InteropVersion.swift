import HTTPWire
import StructuredFields

/// An interop version of draft-ietf-httpbis-resumable-upload that this module implements: 3 (-01) to 8 (-09 … -11),
/// 9 (-12; http-extensions #3476 set it) and 10 (-13).
///
/// Clients send it as `Upload-Draft-Interop-Version`, an sf-Integer, on every request (§1.4 of the digest). A
/// request with a missing, malformed or unimplemented version is served as a plain upload: no 104, and never a 4xx
/// for the version alone (Apple clients send 3, 5, 6 and 8; §4.4 item 1). Each query below says which draft
/// revision introduced the behaviour.
public struct InteropVersion: RawRepresentable, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The versions implemented here.
    public static let implemented: ClosedRange<Int> = 3...10

    /// The request and response field that carries the version.
    public static let fieldName = "Upload-Draft-Interop-Version"

    /// The draft's interop version, or `finalRawValue` for `final`.
    public let rawValue: Int

    /// The version `rawValue`, or nil when it is neither in `implemented` nor `finalRawValue`.
    public init?(rawValue: Int) {
        guard Self.implemented.contains(rawValue) || rawValue == Self.finalRawValue else { return nil }
        self.rawValue = rawValue
    }

    /// The version a request announces: nil when the field is missing, not an sf-Integer, or not implemented.
    public init?(fields: HTTPFields) {
        guard let version = Self.announced(in: fields), Self.implemented.contains(version) else { return nil }
        self.init(rawValue: version)
    }

    /// The unversioned protocol: what the draft will be once published, spoken without `Upload-Draft-Interop-Version`.
    /// A server serves it only when asked to (`--interop …,final`): a request without the field is then a resumable
    /// one, answered as the newest draft answers and with no interop echo; a client set to it sends no field. It
    /// behaves as the newest draft (interop 10, -13) in every query of this type, since its raw value is above every
    /// draft's.
    public static let final = InteropVersion(rawValue: finalRawValue)!

    /// The raw value of `final`, as records and reports keep it.
    public static let finalRawValue = Int.max

    /// Whether this is `final`, the unversioned protocol.
    public var isFinal: Bool { rawValue == Self.finalRawValue }

    /// The version as the CLI and JSON files spell it: `3` … `10`, or `final`.
    public var word: String { Self.word(rawValue) }

    /// A raw version as the CLI and JSON files spell it: `6`, `99` (one not implemented), or `final`.
    public static func word(_ rawValue: Int) -> String {
        rawValue == finalRawValue ? "final" : String(rawValue)
    }

    /// The version `word` spells (`6`, `final`), or nil.
    public init?(word: some StringProtocol) {
        if word == "final" {
            self = .final
            return
        }
        guard let number = Int(word), Self.implemented.contains(number) else { return nil }
        self.init(rawValue: number)
    }

    /// The versions a list such as `3-10,final` or `6,8` names, each once, oldest first and `final` last; nil when a
    /// word is neither a version nor a range of them (`3-11`, `x`, an empty word).
    public static func list(_ text: String) -> [InteropVersion]? {
        var versions = Set<InteropVersion>()
        for word in text.split(separator: ",", omittingEmptySubsequences: false) {
            let bounds = word.split(separator: "-", omittingEmptySubsequences: false)
            if bounds.count == 2, let low = InteropVersion(word: bounds[0]), let high = InteropVersion(word: bounds[1]),
                !low.isFinal, !high.isFinal, low <= high
            {
                versions.formUnion((low.rawValue...high.rawValue).compactMap(InteropVersion.init(rawValue:)))
            } else if let version = InteropVersion(word: word) {
                versions.insert(version)
            } else {
                return nil
            }
        }
        return versions.sorted()
    }

    /// Whether a response with `fields` echoes this version: carries it, or for `final`, carries no version.
    public func isEchoed(in fields: HTTPFields) -> Bool {
        isFinal ? !fields.contains(Self.fieldName) : InteropVersion(fields: fields) == self
    }

    /// Adds `Upload-Draft-Interop-Version` with this version to `fields`; `final` adds nothing.
    public func stamp(_ fields: inout HTTPFields) {
        guard !isFinal else { return }
        fields.append(name: Self.fieldName, value: String(rawValue))
    }

    /// The version number `fields` announce, implemented here or not (`99`); nil when the field is missing or not
    /// an sf-Integer.
    public static func announced(in fields: HTTPFields) -> Int? {
        let lines = fields.values(for: Self.fieldName)
        guard !lines.isEmpty, let item = try? StructuredFieldParser.parseItem(lines: lines), let value = item.integer
        else { return nil }
        return Int(exactly: value)
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    public var description: String { isFinal ? "final (unversioned)" : "interop \(rawValue)" }

    /// Every implemented version, oldest first.
    public static var all: [InteropVersion] {
        implemented.compactMap(InteropVersion.init(rawValue:))
    }
}

extension InteropVersion {
    /// The completion field: `Upload-Incomplete` in interop 3 (-01), `Upload-Complete` from interop 4 (-02) on.
    public var completionFieldName: String {
        rawValue == 3 ? "Upload-Incomplete" : "Upload-Complete"
    }

    /// Whether the completion field says "incomplete" when true (interop 3: `Upload-Incomplete: ?0` is
    /// `Upload-Complete: ?1`).
    public var completionFieldIsInverted: Bool { rawValue == 3 }

    /// The completion field's value saying whether the upload is complete, e.g. `?1`, or `?0` in interop 3.
    public func completionValue(complete: Bool) -> String {
        complete != completionFieldIsInverted ? "?1" : "?0"
    }

    /// Whether `Upload-Limit` exists (interop 6, -04).
    public var supportsLimits: Bool { rawValue >= 6 }

    /// The first version with `Upload-Limit`: interop 6 (-04).
    static let firstWithLimits = InteropVersion(rawValue: 6)!

    /// Whether `Upload-Length` exists (-05, interop 6 without a bump).
    public var supportsUploadLength: Bool { rawValue >= 6 }

    /// Whether PATCH must carry `Content-Type: application/partial-upload` (interop 6, -04).
    public var requiresPartialUploadContentType: Bool { rawValue >= 6 }

    /// Whether PATCH must carry the completion field (interop 7, -06); before, its absence means "last part".
    public var requiresCompletionOnAppend: Bool { rawValue >= 7 }

    /// The statuses a successful offset retrieval may have: 204; 200 as well from interop 5 (-03); any 2xx from
    /// interop 7 (-06 calls every 2xx a success).
    public var headSuccessStatuses: Set<Int> {
        rawValue >= 7 ? Set(200...299) : rawValue >= 5 ? [200, 204] : [204]
    }

    /// Whether the server may send progress 104s carrying `Upload-Offset` (interop 5, -03).
    public var sendsProgress: Bool { rawValue >= 5 }

    /// The `Upload-Limit` key for the remaining lifetime: `expires` in interop 6, `max-age` from interop 7 (-06).
    public var limitsAgeKey: String? {
        guard supportsLimits else { return nil }
        return rawValue == 6 ? "expires" : "max-age"
    }

    /// Whether final creation and append responses must carry `Upload-Offset` (through interop 6; -06 dropped it).
    public var finalResponseCarriesOffset: Bool { rawValue <= 6 }

    /// Whether a final response carries the completion field when the upload is complete: from interop 4 (-02);
    /// interop 3 only flags a partial upload (`Upload-Incomplete: ?1`).
    public var finalResponseFlagsCompletion: Bool { rawValue >= 4 }

    /// Whether the problem types `mismatching-upload-offset` and `completed-upload` exist (interop 6, -04).
    public var hasUploadProblemTypes: Bool { rawValue >= 6 }

    /// Whether the problem type `inconsistent-upload-length` exists (interop 7, -06).
    public var hasInconsistentLengthProblem: Bool { rawValue >= 7 }

    /// Whether an empty append to a completed upload gets 410 Gone (-10/-11, interop 8) rather than 400.
    public var answersGoneForCompletedUpload: Bool { rawValue >= 8 }

    /// Whether a creation may carry `Upload-Offset` (only 0 is allowed through interop 6, -00 … -05).
    public var rejectsCreationOffset: Bool { rawValue <= 6 }

    /// Whether HEAD and DELETE carrying upload fields get 400: the draft's rule in interop 3 … 6 (-00 … -05); from
    /// interop 9 (-12, where a client MUST NOT send them) the reference server's own choice, defensively.
    public var rejectsUploadFieldsOnHeadAndDelete: Bool { rawValue <= 6 || rawValue >= 9 }

    /// Whether GET on an upload resource retrieves its offset as HEAD does (interop 9, -12 §4.3, #3467).
    public var retrievesOffsetOnGet: Bool { rawValue >= 9 }

    /// Whether the upload layer's rejections of a creation or append carry `Upload-Complete: ?0`, saying the answer is
    /// the resumption layer's, not the target resource's (interop 9, -12 §4.1.2, #3404: the server SHOULD include
    /// the field in creation and append responses).
    public var flagsRejectionsIncomplete: Bool { rawValue >= 9 }

    /// Whether an append that would take the offset past the known length invalidates the upload resource: the
    /// request is rejected and the resource refuses any further interaction (interop 9, -12 §4.4.2); before, a 400
    /// left it as it was.
    public var invalidatesOnLengthOverrun: Bool { rawValue >= 9 }

    /// Whether responses to a creation or append that leaves the upload incomplete carry `Upload-Offset`: required
    /// through interop 6; from interop 9 the reference server's choice (the draft allows it; Apple's interop-10
    /// middleware sends it), so that a client need not ask.
    public var partialResponseCarriesOffset: Bool { rawValue <= 6 || rawValue >= 9 }

    /// Whether a request too large for `max-append-size` is answered 413 before a length it would pass is checked:
    /// the reference server's order from interop 9, where a 413 tells the client to resume with less (-12 §4.7,
    /// #3312).
    public var rejectsTooLargeAppendFirst: Bool { rawValue >= 9 }

    /// Whether `min-append-size` spares only creations without content (and completing requests): from interop 9
    /// (-12 §4.1.4, #3407) an empty append that does not complete is below the limit like any other small one. Before,
    /// the reference server spared every empty request.
    public var minAppendSizeSparesOnlyEmptyCreations: Bool { rawValue >= 9 }

    /// Whether rejections of a creation or append for violated limits carry `Upload-Limit` with every limit (interop
    /// 9, -12 §4.1.4, #3466: SHOULD). The reference server sends it on every rejection of one, from interop 9.
    public var rejectionsCarryLimits: Bool { rawValue >= 9 }

    /// Whether the `completed-upload` problem type exists: interop 6 … 8 (-04 … -11; -12 dropped it, #3405).
    public var hasCompletedUploadProblem: Bool { hasUploadProblemTypes && rawValue <= 8 }

    /// Whether an answer flagged `Upload-Complete: ?1` to a creation or append that leaves the upload incomplete may
    /// be the targeted resource's own early answer (interop 9, -12 §4.1.2, #3404): no contradiction of the request's
    /// flag, as it was before.
    public var answersEarlyAsTheResource: Bool { rawValue >= 9 }

    /// Whether a 409 to an append must carry `Upload-Complete: ?0` (interop 9, -12 §4.4.2, #3404: MUST).
    public var conflictFlagsIncomplete: Bool { rawValue >= 9 }

    /// Whether offset retrieval answers must carry the completion field and `Upload-Length` (when known): through
    /// interop 9; -13 (interop 10, #3493) no longer requires them. The reference server sends them at every version.
    public var offsetRetrievalRequiresCompletionAndLength: Bool { rawValue <= 9 }
}
