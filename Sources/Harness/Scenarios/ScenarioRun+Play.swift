import ChaosProxy
import FaultEngine
import Scenario
import ScenarioOracle

/// The run's event loop: it does what its `EventScheduler` says (play an event, relaunch the client, wait, end),
/// asking it again after each step with the proxy's `now`, the client's state and what the transcript shows.
extension ScenarioRun {
    /// Runs the client through its sessions while playing the events; returns what was observed.
    mutating func play(started: ContinuousClock.Instant) throws -> RunObservation {
        let proxy = self.proxy
        let registration = runStop?.whenRequested { proxy.wakeTranscriptWaiters() }
        defer { if let registration { runStop?.withdraw(registration) } }
        try client.start()
        // One time base, the proxy's clock: the timeout, counted from `started`, is moved onto it once.
        let origin = proxy.now
        let deadline = origin + (scenario.timeout - (ContinuousClock.now - started))
        var scheduler = EventScheduler(
            events: scenario.events, origin: origin, deadline: deadline, timeout: scenario.timeout,
            storedStep: storedStep)
        var timedOut = false
        playing: while true {
            if let signal = runStop?.signal {
                // Not judged: the client stops as it would on willTerminate (a child got SIGTERM from the stop).
                client.finish()
                client.terminate()
                waitForClientEnd()
                throw HarnessError("stopped by \(signal.name) before it was judged")
            }
            switch scheduler.next(now: proxy.now, settled: client.isSettled, facts: facts(proxy.transcript)) {
            case .play(let index):
                if case .jobsCreated(let count) = scenario.events[index].trigger {
                    // The client did it, inside the extension's invocation.
                    played(index, did: [client.terminatedAtJob(count) ?? ""], since: origin)
                } else {
                    played(index, did: apply(scenario.events[index].action), since: origin)
                }
            case .relaunch(let index):
                client.finish()
                waitForClientEnd()
                try client.start()
                played(index, did: [client.sessionDescription], since: origin)
            case .wait(let until, let wakesOnSettling):
                wait(until: until, wakesOnSettling: wakesOnSettling, scheduler: scheduler)
            case .end(let unplayed, let reason, let timedOutBusy):
                timedOut = timedOutBusy
                recordNeverPlayed(unplayed, because: reason)
                break playing
            }
        }
        client.finish()
        if timedOut { client.kill() }
        waitForClientEnd()
        return try observation(started: started, timedOut: timedOut)
    }

    /// Waits until `until` on the proxy's clock, or sooner: a held progress point reached (for an event that stops
    /// the client, once the client also journaled the upload it was told of), the client settling (with
    /// `wakesOnSettling`), a stop.
    private func wait(until: Duration, wakesOnSettling: Bool, scheduler: EventScheduler) {
        let (proxy, client, stop, progress) = (self.proxy, self.client, runStop, self.progress)
        _ = proxy.waitForTranscript(timeout: max(.zero, until - proxy.now)) { transcript in
            (wakesOnSettling && client.isSettled) || stop?.isRequested == true
                || scheduler.heldEventDue(
                    now: proxy.now, facts: RunFacts(progress: progress, transcript: transcript, client: client))
        }
    }

    /// What the run observed, once the client ended.
    private mutating func observation(started: ContinuousClock.Instant, timedOut: Bool) throws -> RunObservation {
        clientFailure = clientFailure ?? client.failure
        let ledger = try client.ledger()
        let serverUploads = try server?.uploads() ?? outside?.uploads(of: ledger.all)
        var observation = RunObservation(
            ledger: ledger, transcript: proxy.transcript, serverUploads: serverUploads, assets: assets,
            processJobsResults: client.processJobsResults, peakInFlight: Self.peakInFlight(ledger),
            neverFired: proxy.neverFired.filter { !$0.hasPrefix("squall-") },
            wallTime: ContinuousClock.now - started, timedOut: timedOut, events: records)
        observation.neverFiredReasons = proxy.neverFiredReasons
        observation.proxyOrigin = proxy.url
        observation.servedInterop = Self.servedInterop(scenario, outside: outside)
        observation.tokenPath =
            outside.map { $0.tokenPath(proxyURL: proxy.url, throughProxy: ScenarioNeeds.involvesAuth(scenario)) }
            ?? Self.tokenPath
        if hostsExtension { observation.extensionConduct = try client.extensionConduct() }
        if serverUploads == nil, outside != nil {
            observation.noServerState = "no server introspection: the profile has no \"introspection\""
        }
        return observation
    }

    /// Marks the `unplayed` events as never played: progress triggers say how far the upload got.
    private mutating func recordNeverPlayed(_ unplayed: [Int], because reason: String) {
        for index in unplayed {
            var why = reason
            if case .progress(_, let asset, _) = scenario.events[index].trigger {
                why = progress.furthest(of: asset, in: proxy.transcript) + "; " + reason
            }
            records[index].notPlayed = why
            releaseHold(index)
        }
    }

    /// Stamps the event's record with both clocks (the run's counts from `origin`) and what it did.
    private mutating func played(_ index: Int, did: [String], since origin: Duration) {
        let now = proxy.now
        records[index].runMicroseconds = ScenarioRunner.microseconds(now - origin)
        records[index].proxyMicroseconds = ScenarioRunner.microseconds(now)
        records[index].did = did
        releaseHold(index)
    }

    /// Does what the event says; returns what it did, for the timeline.
    private mutating func apply(_ action: EventAction) -> [String] {
        do {
            switch action {
            case .terminateClient: return [client.terminate()]
            case .killClient, .forceQuit: return [client.kill()]
            case .relaunchClient:
                try client.start()
                return [client.sessionDescription]
            case .networkDown:
                let refuse = try FaultRule(name: Self.networkDownRule, action: .refuse, optional: true)
                try? proxy.addFaultRules([refuse])
                return ["new connections refused", resetLiveConnections(name: "squall-network-down")]
            case .networkUp:
                try? proxy.removeFaultRule(named: Self.networkDownRule)
                return ["new connections accepted again"]
            case .switchNetwork: return [resetLiveConnections(name: "squall-switch-network")]
            case .restartServer:
                if let outside { return try outside.restart() }
                return try server?.restart() ?? []
            case .expireTokens:
                if let outside { return [try outside.expireTokens()] }
                try server?.expireTokens()
                return ["every token issued so far expired"]
            case .disableExtension:
                try client.disableExtension()
                return ["the upload extension disabled"]
            case .enableExtension:
                try client.enableExtension()
                return ["the upload extension enabled"]
            case .addAssets(let spec):
                let added = try AssetFiles.write([spec], seed: scenario.seed, into: folder + "/assets")
                assets += added
                client.addAssets(added.map(\.assetID))
                let sizes = added.map { "\($0.name) (\($0.size) bytes)" }
                return ["added " + sizes.joined(separator: ", ") + " to the library"]
            case .expireChangeToken:
                client.expireChangeToken()
                return ["the library's persistent change token expired"]
            }
        } catch {
            clientFailure = clientFailure ?? "event \(action.name) failed: \(error)"
            return ["failed: \(error)"]
        }
    }

    /// Resets every live connection; says which.
    private func resetLiveConnections(name: String) -> String {
        let ids = proxy.liveConnections().map(\.id)
        for id in ids {
            try? proxy.fire(.reset, direction: .both, on: id, name: name)
        }
        return ids.isEmpty
            ? "no live connection to reset" : "reset connections " + ids.map(String.init).joined(separator: ", ")
    }
}
