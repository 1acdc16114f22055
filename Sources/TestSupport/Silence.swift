import SquallNet

extension ByteStream {
    /// Whether the peer sends nothing and does not close for `window`: a test watching a peer while it lets time
    /// pass (a slow client's pause, a server that must not answer yet), instead of sleeping blind.
    public func staysSilent(for window: Duration) -> Bool {
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 1, alignment: 1)
        defer { scratch.deallocate() }
        do {
            _ = try readSome(into: scratch, deadline: .now + window)
            return false
        } catch let error as NetError {
            return error.code == .timeout
        } catch {
            return false
        }
    }
}
