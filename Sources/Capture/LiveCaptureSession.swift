import CPcap
import CSystem
import Dispatch
import Glibc
import SquallNet

/// The libpcap handle, dump file and stop signal of one `LiveCapture`, and the loop its thread runs.
///
/// After `init`, only the capture thread touches the handles (in `run`) until it signals `finished`; `stop`
/// waits for that signal before it reads the counts and closes everything. That hand-off is what makes the
/// `@unchecked Sendable` safe.
final class LiveCaptureSession: @unchecked Sendable {
    private let path: String
    private let pcap: OpaquePointer
    private let dumper: OpaquePointer
    private let captureDescriptor: Int32
    private let stopDescriptor: Int32
    private let finished = DispatchSemaphore(value: 0)
    private var captured = 0
    private var failure: CaptureError?

    init(device: String, filter: String, path: String) throws(CaptureError) {
        self.path = path
        pcap = try Self.activate(device: device)
        do {
            try Self.install(filter: filter, on: pcap, device: device)
            captureDescriptor = try Self.selectableDescriptor(of: pcap, device: device)
            dumper = try Self.openDump(pcap, path: path)
        } catch {
            pcap_close(pcap)
            throw error
        }
        stopDescriptor = eventfd(0, Int32(EFD_CLOEXEC))
        guard stopDescriptor >= 0 else {
            pcap_dump_close(dumper)
            pcap_close(pcap)
            throw CaptureError(.live, "live capture on '\(device)': eventfd: \(String(cString: strerror(errno)))")
        }
    }

    /// The capture thread: waits for packets or the stop signal, dumps and flushes every batch; on stop,
    /// drains what is queued and returns.
    func run() {
        defer { finished.signal() }
        var descriptors = [
            pollfd(fd: captureDescriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: stopDescriptor, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            if ppoll(&descriptors, 2, nil, nil) < 0 {
                if errno == EINTR { continue }
                failure = CaptureError(.live, "live capture: ppoll: \(String(cString: strerror(errno)))")
                return
            }
            if descriptors[0].revents != 0 && dispatch() < 0 { return }
            if descriptors[1].revents != 0 {
                while dispatch() > 0 {}
                return
            }
        }
    }

    /// Signals the thread, waits for it, then closes the file and the handle and returns the counts.
    func stop() -> LiveCapture.Counts {
        var one: UInt64 = 1
        _ = write(stopDescriptor, &one, MemoryLayout<UInt64>.size)
        finished.wait()
        var statistics = pcap_stat()
        let dropped = pcap_stats(pcap, &statistics) == 0 ? Int(statistics.ps_drop) + Int(statistics.ps_ifdrop) : 0
        pcap_dump_close(dumper)
        pcap_close(pcap)
        Glibc.close(stopDescriptor)
        return LiveCapture.Counts(captured: captured, dropped: dropped, error: failure)
    }

    /// Dumps the packets libpcap has ready and flushes; returns how many (0 when none, -1 on failure).
    private func dispatch() -> Int32 {
        let count = pcap_dispatch(pcap, -1, pcap_dump, UnsafeMutablePointer<UInt8>(dumper))
        if count < 0 {
            failure = CaptureError(.live, "live capture: \(String(cString: pcap_geterr(pcap)))")
            return -1
        }
        if count > 0 {
            captured += Int(count)
            if pcap_dump_flush(dumper) != 0 {
                failure = CaptureError(
                    .write, "cannot write capture file '\(path)': \(String(cString: strerror(errno)))")
                return -1
            }
        }
        return count
    }

    private static func activate(device: String) throws(CaptureError) -> OpaquePointer {
        var errorBuffer = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE))
        guard let pcap = pcap_create(device, &errorBuffer) else {
            let message = errorBuffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw LiveCapture.activationError(status: PCAP_ERROR, device: device, message: message)!
        }
        pcap_set_snaplen(pcap, LiveCapture.snapshotLength)
        pcap_set_immediate_mode(pcap, 1)
        // Loopback delivers 64 KiB packets in bursts at memory speed: a kernel ring of libpcap's default 2 MiB
        // drops some while the capture thread writes; 64 MiB of ring (virtual until touched) absorbs them.
        pcap_set_buffer_size(pcap, 64 << 20)
        let status = pcap_activate(pcap)
        if let error = LiveCapture.activationError(
            status: status, device: device, message: String(cString: pcap_geterr(pcap)))
        {
            pcap_close(pcap)
            throw error
        }
        return pcap
    }

    private static func install(filter: String, on pcap: OpaquePointer, device: String) throws(CaptureError) {
        var program = bpf_program()
        guard pcap_compile(pcap, &program, filter, 1, PCAP_NETMASK_UNKNOWN) == 0 else {
            throw CaptureError(.filter, "filter '\(filter)' on '\(device)': \(String(cString: pcap_geterr(pcap)))")
        }
        defer { pcap_freecode(&program) }
        guard pcap_setfilter(pcap, &program) == 0 else {
            throw CaptureError(.filter, "filter '\(filter)' on '\(device)': \(String(cString: pcap_geterr(pcap)))")
        }
    }

    private static func selectableDescriptor(of pcap: OpaquePointer, device: String) throws(CaptureError) -> Int32 {
        var errorBuffer = [CChar](repeating: 0, count: Int(PCAP_ERRBUF_SIZE))
        let descriptor = pcap_get_selectable_fd(pcap)
        guard pcap_setnonblock(pcap, 1, &errorBuffer) == 0, descriptor >= 0 else {
            let message = errorBuffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw CaptureError(.live, "live capture on '\(device)' cannot poll: \(message)")
        }
        return descriptor
    }

    private static func openDump(_ pcap: OpaquePointer, path: String) throws(CaptureError) -> OpaquePointer {
        guard let dumper = pcap_dump_open(pcap, path) else {
            throw CaptureError(.open, "cannot open capture file '\(path)': \(String(cString: pcap_geterr(pcap)))")
        }
        // Private like the decrypted capture and the key log that decrypts it.
        PrivateFile.restrict(fileno(pcap_dump_file(dumper)))
        return dumper
    }
}
