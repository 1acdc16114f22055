import CPcap

/// Facts about the libpcap the process is linked against.
public enum PcapLibrary {
    /// libpcap's own version line, e.g. `libpcap version 1.10.3 (with TPACKET_V3)`.
    public static var versionDescription: String {
        String(cString: pcap_lib_version())
    }
}
