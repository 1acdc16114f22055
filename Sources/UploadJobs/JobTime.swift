/// A point in time on the caller's clock, in milliseconds.
///
/// The job model never reads a clock: the transfer engine, the extension and the tests pass the time of every
/// change block in. Only differences and order matter; the epoch is the caller's.
public typealias JobTime = Int64
