/// The upload lengths the engine learned, keyed by the upload resource's path, so that a percentage resolves on
/// every request of an upload (a resume comes on a new connection, and its PATCH rarely restates the length).
///
/// Bounded: it holds at most `capacity` resources; past that, the one learned first is forgotten.
struct UploadLengthMemory: Sendable {
    let capacity: Int
    private var lengths: [String: Int64] = [:]
    /// Paths in the order they were first learned, oldest first, from `oldest` on.
    private var order: [String] = []
    private var oldest = 0

    init(capacity: Int) {
        self.capacity = capacity
    }

    subscript(path: String) -> Int64? { lengths[path] }

    mutating func remember(_ length: Int64, for path: String) {
        guard lengths.updateValue(length, forKey: path) == nil else { return }
        order.append(path)
        if lengths.count > capacity {
            lengths[order[oldest]] = nil
            oldest += 1
        }
        if oldest >= capacity {
            order.removeFirst(oldest)
            oldest = 0
        }
    }
}
