import Scenario

/// What `EventScheduler` needs to know of the world for the events it cannot time alone: the holds the run placed at
/// its progress events, the client's journal and jobs, the server's acknowledgements. The run answers from the
/// proxy's transcript and its client (`RunFacts`); a test answers with plain values.
protocol EventFacts {
    /// Where the hold placed for the event at `index` fired (`ScenarioRun.holdName`), once it did: the upload
    /// resource the client had been told of by then, and the time on the proxy's clock.
    func firing(ofHold index: Int) -> UploadProgressIndex.Firing?
    /// Whether an upload crossed the position of `event`, a progress event with no hold (a relaunch).
    func reached(_ event: ScenarioEvent) -> Bool
    /// Whether the client's journal holds the upload resource at `path`.
    func hasRecorded(uploadResource path: String) -> Bool
    /// The highest offset the server reported (in a 104) for the request a hold fired in.
    func acknowledged(after firing: UploadProgressIndex.Firing) -> Int64
    /// Whether the client was told `willTerminate` at the commit of its `count`-th job (`at-jobs-created`).
    func terminatedAtJob(_ count: Int) -> Bool
}
