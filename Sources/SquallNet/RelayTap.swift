/// Sees every chunk a `Relay` reads, before the chunk is buffered for the other side: the seam where the
/// chaos proxy observes traffic. Called on the relay's thread; it must not keep the pointer.
public protocol RelayTap: AnyObject {
    /// `chunk` was just read from `direction.source`.
    func relay(_ direction: RelayDirection, received chunk: UnsafeRawBufferPointer)
}
